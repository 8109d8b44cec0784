"""The command line: every command, thin (parse flags, build settings, call the run layer). The console
script is ``factdebate.cli.launch:main``, which hands every command to ``factdebate.cli.main``."""
