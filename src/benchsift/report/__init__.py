"""Reports: tables, figures and the demo sections that read method results."""
