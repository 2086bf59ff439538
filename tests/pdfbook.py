"""The PDF edition: the single-page HTML build of the book, printed by headless Chromium.

Why this route and not LaTeX: the PDF then shows exactly what the website shows (the same
MathJax, the same theorem boxes, figures and tables), it needs no TeX installation (a
LaTeX route with Chinese and Korean needs well over a gigabyte of TeX packages on every
CI machine), and it reuses the offline browser the site check already drives. Chinese and
Korean glyphs need a CJK font on the printing machine (Debian: ``fonts-noto-cjk``), which
``.ci/run`` installs and ``check_pdf`` verifies is embedded.

Used by ``scripts/pdf.py`` (``make pdf``) and ``tests/test_site.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import sitecheck

ROOT = Path(__file__).resolve().parents[1]

# Print layout: hide the website's chrome, one column, a chapter per page, no box split.
PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
html { font-size: 10.5pt !important; }
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, .bd-footer,
.bd-footer-article, .bd-footer-content, .prev-next-area, .header-article-items, .search-button-field,
#pst-back-to-top, .sbt-scroll-pixel-helper, .headerlink, .skip-link, #searchbox,
button.toggle-button, .dropdown-toggle, #pst-skip-link, .onlyprint { display: none !important; }
/* the theme's print style hides the article's h1 (it prints its own page header instead) */
article h1 { display: block !important; }
.bd-container, .bd-container__inner, .bd-main, .bd-content, .bd-article-container, .bd-article {
  max-width: none !important; width: auto !important; margin: 0 !important; padding: 0 !important;
  display: block !important; overflow: visible !important; }
/* the single-page build nests every document in its parent's toctree: one per page */
.toctree-wrapper > section { break-before: page; }
.dpnotes-part, .dpnotes-toc { break-before: page; break-after: page; }
.dpnotes-title { break-after: page; }
.proof, .admonition, figure, .cell_output img, table, mjx-container[display="true"] { break-inside: avoid; }
h1, h2, h3, h4 { break-after: avoid; }
pre { white-space: pre-wrap !important; word-break: break-word; }
.dpnotes-title { text-align: center; padding-top: 30vh; }
.dpnotes-title h1.book { font-size: 2.4rem; border: none; }
.dpnotes-toc ol { list-style: none; padding-left: 1.2em; }
.dpnotes-toc > ol { padding-left: 0; }
.dpnotes-toc li.part { font-weight: bold; margin-top: 0.8em; }
.dpnotes-toc li.chapter { font-weight: normal; }
.dpnotes-toc a { text-decoration: none; color: inherit; }
.dpnotes-part h1 { font-size: 2rem; text-align: center; padding-top: 35vh; border: none; }
"""

# Runs in the page: a title page, a table of contents and part pages, from the book's
# _toc.yml structure (the single-page build keeps each document's content, marked by
# <span id="document-NAME">, but drops the parts of the sidebar).
ARRANGE_JS = """
([meta, parts]) => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const first = article.firstElementChild;
  const el = (tag, cls, html) => { const e = document.createElement(tag); if (cls) e.className = cls;
                                   if (html !== undefined) e.innerHTML = html; return e; };
  const title = el('div', 'dpnotes-title');
  title.appendChild(el('h1', 'book', meta.title));
  title.appendChild(el('p', 'subtitle', meta.subtitle));
  title.appendChild(el('p', 'author', meta.author));
  title.appendChild(el('p', 'version', meta.version));
  article.insertBefore(title, first);
  const toc = el('nav', 'dpnotes-toc');
  toc.appendChild(el('h1', 'toc-title', 'Contents'));
  const list = el('ol');
  toc.appendChild(list);
  article.insertBefore(toc, first);
  const missing = [];
  for (const part of parts) {
    const partItem = el('li', 'part', part.caption);
    const chapters = el('ol');
    partItem.appendChild(chapters);
    list.appendChild(partItem);
    let firstDoc = true;
    for (const doc of part.docs) {
      const anchor = document.getElementById('document-' + doc);
      if (!anchor) { missing.push(doc); continue; }
      const section = anchor.nextElementSibling;
      const h1 = section && section.querySelector('h1, h2, h3, h4');
      if (!h1) { missing.push(doc); continue; }
      if (firstDoc) {
        const divider = el('div', 'dpnotes-part');
        divider.appendChild(el('h1', 'part-title', part.caption));
        anchor.parentNode.insertBefore(divider, anchor);
        firstDoc = false;
      }
      const text = h1.textContent.replace(/#$/, '').trim();
      const item = el('li', 'chapter');
      const link = el('a', '', '');
      link.textContent = text;
      link.href = '#' + (section.id || anchor.id);
      item.appendChild(link);
      chapters.appendChild(item);
    }
  }
  document.querySelectorAll('details.solution, details.dropdown').forEach(d => d.open = true);
  return missing;
}
"""

# Runs in the page: wrap the first run of Chinese (Han) and of Korean (Hangul) text in a span
# marked data-cjk-probe, so that the fonts Chromium draws them with can be asked for.
PROBE_JS = """
() => {
  const runs = {zh: /[\u4e00-\u9fff]+/, ko: /[\uac00-\ud7af]+/};
  const found = {};
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const [lang, re] of Object.entries(runs)) {
      if (found[lang]) continue;
      const m = node.textContent.match(re);
      if (!m) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const span = document.createElement('span');
      span.dataset.cjkProbe = lang;
      range.surroundContents(span);
      found[lang] = m[0];
      break;
    }
  }
  return found;
}
"""


def book_structure(root: Path = ROOT) -> list[dict]:
    """The parts of ``_toc.yml`` with their documents in reading order (sections included)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    parts = []

    def walk(entries, docs):
        for e in entries or []:
            if "file" in e:
                docs.append(e["file"])
            walk(e.get("sections"), docs)

    for part in toc.get("parts", []):
        docs: list[str] = []
        walk(part.get("chapters"), docs)
        parts.append({"caption": part.get("caption", ""), "docs": docs})
    return parts


def book_meta(root: Path = ROOT) -> dict:
    import yaml

    import dpnotes

    cfg = yaml.safe_load((root / "_config.yml").read_text())
    title = cfg.get("title", "dpnotes")
    main, _, sub = title.partition(":")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                            text=True).stdout.strip()
    return {"title": main.strip(), "subtitle": sub.strip(), "author": cfg.get("author", ""),
            "version": f"version {dpnotes.__version__}" + (f" ({commit})" if commit else "")}


def print_pdf(singlehtml: Path, pdf: Path, *, chromium: str, root: Path = ROOT) -> dict:
    """Print the single-page build ``singlehtml`` to ``pdf``.

    Returns (and writes beside the PDF as ``<name>.json``) the documents of ``_toc.yml`` it
    could not place and, for Chinese and Korean text, the fonts Chromium drew it with.
    """
    pdf.parent.mkdir(parents=True, exist_ok=True)
    page_name = "intro.html" if (singlehtml / "intro.html").exists() else "index.html"
    with sitecheck.offline_browser(singlehtml, chromium=chromium) as (base, ctx):
        page = ctx.new_page()
        page.goto(base + page_name, wait_until="load", timeout=120_000)
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                               timeout=120_000)
        page.evaluate("() => MathJax.startup.promise")
        page.add_style_tag(content=PRINT_CSS)
        missing = page.evaluate(ARRANGE_JS, [book_meta(root), book_structure(root)])
        page.emulate_media(media="print")
        cjk = _cjk_fonts(ctx, page)
        page.pdf(path=str(pdf), format="A4", print_background=True, outline=True, tagged=True,
                 display_header_footer=True, header_template="<span></span>",
                 footer_template='<div style="font-size:8px;width:100%;text-align:center;color:#555">'
                                 '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
                 margin={"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"})
    (pdf.parent / (pdf.name + ".json")).write_text(json.dumps({"missing": missing, "cjk": cjk}, indent=1))
    return {"missing": missing, "cjk": cjk}


def _cjk_fonts(ctx, page) -> dict:
    """For a run of Chinese and of Korean text on the page: the text, and the fonts Chromium
    actually drew it with (DevTools' CSS.getPlatformFontsForNode)."""
    texts = page.evaluate(PROBE_JS)
    cdp = ctx.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]  # the whole tree would take a minute
    out = {}
    for lang, text in texts.items():
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f'[data-cjk-probe="{lang}"]'})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"] if node else []
        out[lang] = {"text": text, "fonts": [f["familyName"] for f in fonts if f.get("glyphCount", 0) > 0]}
    return out


def font_has_glyphs(family: str, text: str) -> bool:
    """Whether an installed font of ``family`` covers every character of ``text`` (fontconfig)."""
    charset = " ".join(f"{ord(c):x}" for c in set(text))
    res = subprocess.run(["fc-list", f":family={family}:charset={charset}", "family"], capture_output=True,
                         text=True)
    return bool(res.stdout.strip())


def cjk_problems(report: dict) -> list[str]:
    """Chinese or Korean text missing from the book, or drawn only with fonts lacking its glyphs (boxes)."""
    problems = []
    for lang, name in (("zh", "Chinese"), ("ko", "Korean")):
        probe = report.get("cjk", {}).get(lang)
        if not probe:
            problems.append(f"no {name} text found in the book (the glossary gives every term in {name})")
        elif not any(font_has_glyphs(f, probe["text"]) for f in probe["fonts"]):
            problems.append(f"{name} text {probe['text']!r} drawn with {probe['fonts']}, none of which has its "
                            "glyphs: it shows as boxes (Debian: apt-get install fonts-noto-cjk)")
    return problems


_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)
# a document inlined in the single-page build: its title is a lower heading, after a section number
_HEADING = re.compile(r"<h([1-6])[^>]*>(?:<span class=\"section-number\">[^<]*</span>)?(.*?)</h\1>", re.S)


def chapter_titles(html_dir: Path, root: Path = ROOT) -> dict[str, str]:
    """The title of every document of the book, as the website shows it (its first ``h1``).

    ``html_dir`` is the website (a page per document) or, when only the PDF edition was built, the
    single-page build, where a document's title is the first heading after its ``document-`` anchor,
    without the section number the PDF edition adds (a document absent from it is left out here:
    ``check_pdf`` reports it from the print report)."""
    titles, single = {}, None
    for part in book_structure(root):
        for doc in part["docs"]:
            page = html_dir / f"{doc}.html"
            if page.exists():
                m = _H1.search(page.read_text(encoding="utf-8"))
            else:
                if single is None:
                    name = "intro.html" if (html_dir / "intro.html").exists() else "index.html"
                    single = (html_dir / name).read_text(encoding="utf-8")
                anchor = single.find(f'id="document-{doc}"')
                m = _HEADING.search(single, anchor) if anchor >= 0 else None
            if m:
                text = re.sub(r"<[^>]+>", "", m.group(m.lastindex))
                titles[doc] = re.sub(r"\s+", " ", text.replace("#", "")).strip()
    return titles


def pdf_text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def pdf_pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def check_pdf(pdf: Path, html_dir: Path, root: Path = ROOT) -> list[str]:
    """Problems of a printed book: a chapter title absent, an unresolved "??" reference, an
    implausible page count, Chinese or Korean drawn without a font that has its glyphs (boxes)."""
    problems = []
    text = re.sub(r"\s+", " ", pdf_text(pdf))
    squeezed = text.replace(" ", "")
    titles = chapter_titles(html_dir, root)
    problems += [f"no title found for {doc} in {html_dir}" for part in book_structure(root)
                 for doc in part["docs"] if doc not in titles]
    for doc, title in titles.items():
        # pdftotext may break a long title over lines or drop spaces around math: compare without spaces
        if title.replace(" ", "") not in squeezed:
            problems.append(f"chapter title missing from the PDF: {title!r} ({doc})")
    for m in re.finditer(r"\?\?", text):
        problems.append(f"unresolved reference '??' in: {text[max(0, m.start() - 60):m.end() + 20]!r}")
    n_docs = sum(len(p["docs"]) for p in book_structure(root))
    pages = pdf_pages(pdf)
    if not 4 * n_docs <= pages <= 60 * n_docs:
        problems.append(f"{pages} pages for {n_docs} documents: outside the plausible range")
    report_path = pdf.parent / (pdf.name + ".json")
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    problems += [f"document not found in the single-page build: {d}" for d in report.get("missing", ["?"])]
    problems += cjk_problems(report)
    return problems


def missing_tools() -> list[str]:
    """What printing and checking the PDF needs that this machine lacks, with how to get it."""
    need = []
    for tool in ("pdftotext", "pdfinfo"):
        if shutil.which(tool) is None:
            need.append(f"{tool} (Debian: apt-get install poppler-utils)")
            break
    fc = shutil.which("fc-list")
    if fc is None or not subprocess.run([fc, ":lang=zh"], capture_output=True, text=True).stdout.strip():
        need.append("a Chinese/Korean font (Debian: apt-get install fonts-noto-cjk)")
    return need


if __name__ == "__main__":  # pragma: no cover - a debugging aid
    print(json.dumps(book_structure(), indent=1))
