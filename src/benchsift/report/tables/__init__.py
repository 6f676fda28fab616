"""The rich tables the commands print, one module per command family, each table a function of a result.

Pattern: ``render_<what>(result, ...) -> rich.table.Table`` (or a list of lines for the text printed around
the tables); the CLI calls it and prints the returned table through its console
(:class:`benchsift.report.console.TableConsole`, which fits it to the terminal or writes CSV / Markdown /
JSON). A notebook can print the same table with ``rich.print(render_x(result))``.

* :mod:`~benchsift.report.tables.redundancy`: ``redundancy dimensions|instances|benchmarks``;
* :mod:`~benchsift.report.tables.compression`: ``compress``, ``estimate``;
* :mod:`~benchsift.report.tables.validation`: ``validate`` (the protocols' tables);
* :mod:`~benchsift.report.tables.diagnostics`: ``diagnose stage3|shelf-life|checkpoints``;
* :mod:`~benchsift.report.tables.adaptive`: ``adaptive bank|next|simulate``;
* :mod:`~benchsift.report.tables.prism`: ``prism score|analyze|audit`` and the engine stages
  ``prism sources|build|run|grade``;
* :mod:`~benchsift.report.tables.panel`: ``info``, ``simulate``, ``export``;
* :mod:`~benchsift.report.tables.audit`: ``audit``;
* :mod:`~benchsift.report.tables.format`: the number formats they share.
"""
