"""``factdebate reproduce``: a paper's experiment run with the user's model and compared with the paper's
figures (papers.toml, spec.py), one eval run per run and dataset (cells.py, execute.py), measured as the
paper measures (measure.py) and reported side by side (report.py); ``--from`` reruns a recorded run
(rerun.py). docs/reproduce.md is the user's page."""
