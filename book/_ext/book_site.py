"""Site-wide fixes of the HTML output, loaded by _config.yml (sphinx.local_extensions).

- sphinx-thebe 0.3.1 (always loaded by Jupyter Book 1) adds its configuration script
  to every page, twice in a Jupyter Book build: the second copy redeclares
  ``const THEBE_JS_URL`` and raises a JavaScript error on every page. The book has no
  live-code button (``launch_buttons.thebe: false``), so its scripts are dropped; if
  thebe is turned on, only exact duplicates are.
- Every page's footer gives the version (pyproject.toml's, the one CITATION.cff
  cites) and Sphinx prints the build date beside it (``html_last_updated_fmt``).
- The bibliography is labelled like the citations in the text, "[Author, year]"
  (pybtex style ``authoryear``, set as ``bibtex_default_style``), not [1], [2], ...
"""

from __future__ import annotations


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


def setup(app):
    _register_bibliography_style()
    app.connect("config-inited", _version_in_footer)
    app.connect("html-page-context", _drop_thebe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
