"""The ``benchsift`` command line (a thin layer over the library)."""
