"""The two ways the tools stop on purpose, each with its exit code."""


class InputError(Exception):
    """Bad input: a config, a data file or an argument (exit code 2)."""

    exit_code = 2


class CheckFailed(Exception):
    """One of the checks for the failures that are otherwise silent (exit code 3)."""

    exit_code = 3
