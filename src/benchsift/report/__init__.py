"""Rendering only: tables, figures, the HTML report and terminal output of method results.

The code that runs methods and writes output folders is in :mod:`benchsift.workflows`.
"""
