"""The command line: every command, thin (parse flags, build settings, call the run layer). The console
script is ``factdebate.cli.main:main``."""
