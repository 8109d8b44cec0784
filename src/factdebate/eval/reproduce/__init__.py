"""``factdebate reproduce``: a paper's experiment run with the user's model and compared with the paper's
figures; ``--from`` reruns a recorded run (rerun.py). docs/reproduce.md is the user's page."""
