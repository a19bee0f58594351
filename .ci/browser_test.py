"""Open every page of the built book in headless Chromium, as a reader without network would.

The site in ``_build/html`` is served on 127.0.0.1; every request to another host is
blocked (and counted as a failure). Each page is loaded at 1400 px and checked for:

- math: MathJax finished, no ``mjx-merror``, no raw TeX (``\\(``, ``\\[``, ``$$``,
  ``\\begin{``, a TeX command) left in the rendered text outside code, no display
  equation wider than the text column;
- tables: no cell of an output table cut short by pandas (ending in ``...``);
- JavaScript: no console error and no uncaught exception;
- links: every internal ``<a href>`` points to an existing file and, if it has a
  ``#fragment``, to an existing id in that file;
- images: every ``<img>`` loaded (natural width > 0), with alt text that is not a
  file name;
- figures: every ``<figure>`` has a non-empty caption, and every image in a
  notebook cell's output sits in a captioned figure;
- navigation: at 400 px (and at 900 px on the landing page) the chapter-list button
  is visible and opens a drawer that shows the links to the chapters; at 1400 px
  the chapter list is on screen.

One screenshot per page is saved (``--screenshots DIR``, default
``_build/screenshots``, outside git). Usage::

    python .ci/browser_test.py [_build/html] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from playwright.sync_api import sync_playwright

# Chromium without the requests it makes on its own (updates, sync, field trials):
# the machine has no network, and those failures are not the site's.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]

# Raw TeX in rendered text: delimiters MathJax should have consumed, or a command.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\(?:frac|sum|mathrm|left|right)\b")

# The page's visible text without code, outputs and rendered math, for RAW_TEX.
TEXT_JS = """() => {
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .cell_output, '
                       + 'textarea, .MathJax_Preview').forEach(e => e.remove());
  return copy.textContent;
}"""

PAGE_JS = """() => {
  const hrefs = Array.from(document.querySelectorAll('a[href]'))
    .map(a => a.getAttribute('href'));
  const images = Array.from(document.querySelectorAll('img')).map(img => ({
    src: img.getAttribute('src'), alt: img.getAttribute('alt'),
    loaded: img.complete && img.naturalWidth > 0,
    inOutput: !!img.closest('.cell_output'),
    caption: (() => { const f = img.closest('figure');
      const c = f && f.querySelector('figcaption');
      return c ? c.textContent.trim() : null; })(),
  }));
  const figures = Array.from(document.querySelectorAll('figure')).map(f => {
    const c = f.querySelector('figcaption');
    return {id: f.id, caption: c ? c.textContent.trim() : ''};
  });
  // display equations wider than the text column, table cells cut by pandas
  const column = (document.querySelector('article.bd-article') || document.body).clientWidth;
  const wideMath = Array.from(document.querySelectorAll('mjx-container[display="true"]'))
    .filter(m => m.querySelector('mjx-math').getBoundingClientRect().width > column)
    .map(m => (m.closest('div.math') || m.parentElement).id || '?');
  const cutCells = Array.from(document.querySelectorAll('.cell_output td, .cell_output th'))
    .map(td => td.textContent.trim()).filter(t => /(\.\.\.|…)$/.test(t) && t.length > 8)
    .map(t => t.slice(-30));
  return {
    hrefs, images, figures, wideMath, cutCells,
    math: document.querySelectorAll('mjx-container').length,
    mathErrors: Array.from(document.querySelectorAll('mjx-merror'))
      .map(e => e.getAttribute('data-mjx-error') || e.textContent).slice(0, 5),
  };
}"""

MATHJAX_DONE_JS = """async () => {
  if (!document.querySelector('script[src*="mathjax"]')) return 'none';
  for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup
       && MathJax.startup.promise); i++) await new Promise(r => setTimeout(r, 50));
  if (!(window.MathJax && MathJax.startup)) return 'not loaded';
  await MathJax.startup.promise;
  return 'done';
}"""

# Is the chapter list on screen: some link of the primary sidebar visible in the
# viewport, with a width.
NAV_VISIBLE_JS = """() => {
  const links = document.querySelectorAll('.bd-sidebar-primary .bd-links a,'
                                          + ' dialog#pst-primary-sidebar-modal a');
  return Array.from(links).filter(a => {
    const r = a.getBoundingClientRect();
    const s = getComputedStyle(a);
    return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth
      && r.top < innerHeight && r.bottom > 0 && s.visibility !== 'hidden';
  }).length;
}"""


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)


@functools.cache
def page_ids(path: Path) -> frozenset[str]:
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D102 - silence the access log
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def check_links(site: Path, rel: str, hrefs: list[str], base: str) -> tuple[int, list[str]]:
    """Internal links of one page: the file exists, and the fragment is an id in it."""
    problems, checked = [], 0
    page_url = urljoin(base, rel)
    for href in dict.fromkeys(hrefs):
        url = urljoin(page_url, href)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not url.startswith(base):
            continue  # another host (the repository button), mailto:, javascript:
        checked += 1
        target = site / unquote(parts.path[len(urlsplit(base).path) :])
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"broken link {href!r}")
            continue
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html" and fragment not in page_ids(target):
            problems.append(f"link {href!r}: no id {fragment!r} in {target.name}")
    return checked, problems


def open_drawer(context, url: str, width: int) -> str | None:
    """At a narrow width, the chapter list is hidden and opens from its button."""
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(url, wait_until="load")
    page.wait_for_timeout(300)
    try:
        if page.evaluate(NAV_VISIBLE_JS):
            return f"{width} px: the chapter list covers the page before the button is pressed"
        buttons = [b for b in page.query_selector_all(".primary-toggle") if b.is_visible()]
        if not buttons:
            return f"{width} px: no visible button for the chapter list"
        buttons[0].click()
        page.wait_for_timeout(500)
        if not page.evaluate(NAV_VISIBLE_JS):
            return f"{width} px: the chapter-list button does not open the drawer"
        return None
    finally:
        page.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="_build/html")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", default="_build/screenshots")
    args = parser.parse_args(argv)

    site = Path(args.site).resolve()
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    pages = [p for p in pages if not p.startswith(("_static/", "_sources/", "mathjax/"))]
    shots = Path(args.screenshots)
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)

    server, base = serve(site)
    problems: list[str] = []
    totals = dict(pages=0, math=0, links=0, images=0, figures=0)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            outside: list[str] = []

            def route(r):
                if r.request.url.startswith(base) or r.request.url.startswith("data:"):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()

            context.route("**/*", route)
            for rel in pages:
                html = (site / rel).read_text(encoding="utf-8")
                refresh = re.match(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', html)
                if refresh:  # the site's root redirects to the landing page
                    target = site / Path(rel).parent / refresh.group(1)
                    if not target.is_file():
                        problems.append(f"{rel}: redirects to a missing {refresh.group(1)}")
                    continue
                page = context.new_page()
                errors: list[str] = []
                page.on(
                    "console",
                    lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None,
                )
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                outside.clear()
                mine: list[str] = []
                page.goto(urljoin(base, rel), wait_until="load")
                state = page.evaluate(MATHJAX_DONE_JS)
                if state == "not loaded":
                    mine.append("MathJax did not start")
                # images below the fold load when scrolled to
                page.evaluate(
                    "document.querySelectorAll('img[loading=lazy]')"
                    ".forEach(i => i.loading = 'eager')"
                )
                page.wait_for_load_state("networkidle")
                info = page.evaluate(PAGE_JS)
                text = page.evaluate(TEXT_JS)
                for m in list(RAW_TEX.finditer(text))[:3]:
                    snippet = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
                    mine.append(f"raw TeX in the text: ...{snippet}...")
                mine += [f"MathJax error: {e}" for e in info["mathErrors"]]
                mine += [f"equation {e} is wider than the text" for e in info["wideMath"]]
                mine += [f"table cell cut short: ...{t}" for t in info["cutCells"][:3]]
                checked, bad = check_links(site, rel, info["hrefs"], base)
                mine += bad
                for img in info["images"]:
                    name = img["src"] or "?"
                    if not img["loaded"]:
                        mine.append(f"image {name} did not load")
                    alt = (img["alt"] or "").strip()
                    if not alt or re.search(r"\.(png|jpe?g|svg|gif)$|/", alt):
                        mine.append(f"image {name}: alt text {alt!r} is not a description")
                    if img["inOutput"] and not img["caption"]:
                        mine.append(f"image {name}: a figure without caption")
                for fig in info["figures"]:
                    if not fig["caption"]:
                        mine.append(f"figure {fig['id'] or '?'} without caption")
                page.screenshot(path=str(shots / (rel.replace("/", "__") + ".png")))
                if rel != "search.html":  # the search page has no sidebar drawer
                    for width in (400, 900) if rel == "book/index.html" else (400,):
                        failure = open_drawer(context, urljoin(base, rel), width)
                        if failure:
                            mine.append(failure)
                    if not page.evaluate(NAV_VISIBLE_JS):
                        mine.append("1400 px: the chapter list is not on screen")
                mine += [f"JavaScript error: {e}" for e in dict.fromkeys(errors)]
                mine += [f"request to another host: {u}" for u in dict.fromkeys(outside)]
                problems += [f"{rel}: {p}" for p in mine]
                totals["pages"] += 1
                totals["math"] += info["math"]
                totals["links"] += checked
                totals["images"] += len(info["images"])
                totals["figures"] += len(info["figures"])
                page.close()
            browser.close()
    finally:
        server.shutdown()
    for p in problems:
        print(f"browser_test: {p}", file=sys.stderr)
    print(
        "browser_test: {pages} pages, {math} math spans rendered, {links} internal links "
        "checked, {images} images, {figures} figures; ".format(**totals)
        + f"{len(problems)} problems; screenshots in {shots}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
