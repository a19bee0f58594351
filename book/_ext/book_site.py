"""Site-wide fixes of the HTML output, loaded by _config.yml (sphinx.local_extensions).

- sphinx-thebe 0.3.1 (always loaded by Jupyter Book 1) adds its configuration script
  to every page, twice in a Jupyter Book build: the second copy redeclares
  ``const THEBE_JS_URL`` and raises a JavaScript error on every page. The book has no
  live-code button (``launch_buttons.thebe: false``), so its scripts are dropped; if
  thebe is turned on, only exact duplicates are.
- Every page's footer gives the version (pyproject.toml's, the one CITATION.cff
  cites) and Sphinx prints the build date beside it (``html_last_updated_fmt``).
- In the PDF (LaTeX builder), a pandas table output is typeset as a table, built from
  its HTML, instead of the fixed-width text that wraps into an unreadable block.
- The bibliography is labelled like the citations in the text, "[Author, year]"
  (pybtex style ``authoryear``, set as ``bibtex_default_style``), not [1], [2], ...
"""

from __future__ import annotations

from html.parser import HTMLParser

from sphinx.transforms.post_transforms import SphinxPostTransform


def _drop_thebe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    thebe_on = bool(
        app.config.html_theme_options.get("launch_buttons", {}).get("thebe")
    )
    kept, seen = [], set()
    for script in scripts:
        name = str(getattr(script, "filename", script) or "")
        body = getattr(script, "attributes", {}).get("body", "") or ""
        key = (name, body)
        if key in seen:
            continue
        seen.add(key)
        if not thebe_on and (
            "THEBE_JS_URL" in body or name.endswith("sphinx-thebe.js")
        ):
            continue
        kept.append(script)
    scripts[:] = kept


# -- Bibliography labels that match the author-year citations in the text -------------
# The text cites as "[Järvelin and Kekäläinen, 2002]" (bibtex_reference_style:
# author_year); pybtex's plain style would label the list [1], [2], ... instead.


def _author_year_label(entry) -> str:
    from pybtex.richtext import Text

    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [
        Text.from_latex(" ".join(p.prelast_names + p.last_names)).render_as("text")
        for p in people
    ]
    if not names:
        who = entry.fields.get("organization", entry.key)
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    year = Text.from_latex(entry.fields.get("year", "n.d.")).render_as("text")
    return f"{who}, {year}"


def _register_bibliography_style() -> None:
    import pybtex.plugin
    from pybtex.style.formatting.plain import Style as PlainStyle
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            seen: dict[str, int] = {}
            for entry in sorted_entries:
                label = _author_year_label(entry)
                seen[label] = seen.get(label, 0) + 1
                # two works of the same authors and year: 2020, 2020b, ...
                yield (
                    label
                    if seen[label] == 1
                    else f"{label}{'abcdefgh'[seen[label] - 1]}"
                )

    class AuthorYearStyle(PlainStyle):
        default_label_style = AuthorYearLabels

    pybtex.plugin.register_plugin(
        "pybtex.style.formatting", "authoryear", AuthorYearStyle
    )


def _version_in_footer(app, config):
    import tomllib
    from pathlib import Path

    pyproject = Path(app.confdir) / "pyproject.toml"
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    config.version = config.release = project["version"]
    options = dict(config.html_theme_options)
    options["extra_footer"] = (
        f"<p>Version {project['version']} of the book and of the "
        f"<code>{project['name']}</code> package (import name "
        "<code>recmetrics</code>). Cite it as given on the first page.</p>"
    )
    config.html_theme_options = options


# -- pandas tables in the PDF ---------------------------------------------------------


class _HtmlTable(HTMLParser):
    """The cells of the first <table> of an HTML snippet: rows of (text, colspan,
    rowspan), header rows (those in <thead>) apart."""

    def __init__(self) -> None:
        super().__init__()
        self.head: list[list[tuple[str, int, int]]] = []
        self.body: list[list[tuple[str, int, int]]] = []
        self._in_head = self._done = False
        self._depth = 0
        self._row: list[tuple[str, int, int]] | None = None
        self._cell: list[str] | None = None
        self._span = (1, 1)

    def handle_starttag(self, tag, attrs):
        if self._done:
            return
        if tag == "table":
            self._depth += 1
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            a = dict(attrs)
            self._cell = []
            self._span = (int(a.get("colspan") or 1), int(a.get("rowspan") or 1))
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if self._done:
            return
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append((" ".join("".join(self._cell).split()), *self._span))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (self.head if self._in_head else self.body).append(self._row)
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._depth -= 1
            self._done = self._depth == 0

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _grid(rows: list[list[tuple[str, int, int]]]) -> list[list[str]]:
    """Expand colspan and rowspan: a spanned cell's text in its first slot only."""
    out: list[list[str]] = []
    pending: dict[int, int] = {}  # column -> rows it is still covered by a rowspan
    for row in rows:
        line: list[str] = []
        cells = iter(row)
        col = 0
        while True:
            if pending.get(col, 0) > 0:
                pending[col] -= 1
                line.append("")
                col += 1
                continue
            cell = next(cells, None)
            if cell is None:
                break
            text, colspan, rowspan = cell
            for j in range(colspan):
                line.append(text if j == 0 else "")
                if rowspan > 1:
                    pending[col + j] = rowspan - 1
            col += colspan
        while pending.get(col, 0) > 0:  # spans that end the row
            pending[col] -= 1
            line.append("")
            col += 1
        out.append(line)
    return out


def _table_node(html: str):
    from docutils import nodes

    parser = _HtmlTable()
    parser.feed(html)
    head, body = _grid(parser.head), _grid(parser.body)
    if not body:
        return None
    width = max(len(r) for r in head + body)
    table = nodes.table(classes=["nb-dataframe"])
    group = nodes.tgroup(cols=width)
    table += group
    # column widths: the longest word fits (no "con-ven-tion"), long texts get
    # room in proportion to their mean length
    rows = [r + [""] * (width - len(r)) for r in head + body]
    for j in range(width):
        texts = [r[j] for r in rows if r[j]] or [""]
        longest_word = max(len(w) for t in texts for w in (t.split() or [""]))
        mean = sum(len(t) for t in texts) / len(texts)
        group += nodes.colspec(colwidth=max(3, longest_word + 2, min(round(mean), 40)))
    table["classes"].append("colwidths-given")
    for rows, part in ((head, nodes.thead()), (body, nodes.tbody())):
        if not rows:
            continue
        for r in rows:
            row = nodes.row()
            for text in r + [""] * (width - len(r)):
                entry = nodes.entry()
                entry += nodes.paragraph(text=text)
                row += entry
            part += row
        group += part
    return table


class _DataFramesAsTables(SphinxPostTransform):
    """Before MyST-NB picks an output's MIME type: give each HTML table output a
    docutils table (as its text/latex form), which the LaTeX builder then prefers."""

    default_priority = 3  # MyST-NB's SelectMimeType runs at 4
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        from docutils import nodes

        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            types = {child.get("mime_type"): child for child in bundle.children}
            html = types.get("text/html")
            if html is None or "text/latex" in types:
                continue
            raw = "".join(n.astext() for n in html.findall(nodes.raw))
            if "<table" not in raw:
                continue
            table = _table_node(raw)
            if table is not None:
                bundle += nodes.container(
                    "", table, mime_type="text/latex", nb_element="mime_type"
                )


def setup(app):
    app.add_post_transform(_DataFramesAsTables)
    _register_bibliography_style()
    app.connect("config-inited", _version_in_footer)
    app.connect("html-page-context", _drop_thebe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
