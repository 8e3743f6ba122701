"""The class report as one HTML page that opens from disk: inline CSS, plots drawn here as
inline SVG, a few lines of inline JavaScript to sort tables, nothing fetched. Every name
and text that came from a submission or its feedback is escaped."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

MAX_NAMES = 25  # names shown for a diagnosis before "and N more" (all of them are in the JSON)
MAX_PAIRS = 200  # rows of the similarity table; the JSON lists every pair
MAX_VIEWS = 30  # pairs with a side-by-side view

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em 1.5em;color:#1d1d1f}
h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;width:100%}th,td{border-bottom:1px solid #e3e3e3;padding:.3em .5em;
text-align:left;vertical-align:top}th{background:#f4f4f6;cursor:pointer;user-select:none;white-space:nowrap}
th.num,td.num{text-align:right}
.card{border:1px solid #ddd;border-radius:8px;padding:.6em 1em;margin:.8em 0;display:grid;
grid-template-columns:490px 1fr;gap:1em}@media (max-width:900px){.card{grid-template-columns:1fr}}
.card h3{margin:.2em 0}.stat{color:#555}
.lost{display:inline-block;height:.8em;background:#d9534f;border-radius:2px;vertical-align:middle;margin-right:.4em}
svg .bar{fill:#4a78c2}svg text{font:11px system-ui,sans-serif;fill:#333}svg .mean{stroke:#d9534f;stroke-width:2}
.count{font-weight:bold;font-size:1.1em}.note{color:#a94442}.muted{color:#777}details summary{cursor:pointer}
.side{display:grid;grid-template-columns:1fr 1fr;gap:.5em}.side pre{font-size:12px;background:#fafafa;margin:0;
border:1px solid #ddd;padding:.4em;overflow:auto;max-height:480px}mark{background:#ffe08a}
.flag{color:#fff;background:#c9302c;border-radius:4px;padding:0 .4em;font-size:.85em}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dt{font-weight:bold}
"""

SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),
up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';var rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var p=x.cells[i].dataset.v||x.cells[i].textContent,
q=y.cells[i].dataset.v||y.cells[i].textContent,m=parseFloat(p),n=parseFloat(q),
c=(isNaN(m)||isNaN(n))?p.localeCompare(q):m-n;return up?c:-c;});
rows.forEach(function(r){b.appendChild(r);});});});
"""

# What the reader sees, in English and Spanish.
TEXT = {
    "lost_per_test": ("Share of students who lost points, per test",
                      "Proporción de estudiantes que perdieron puntos, por test"),
    "no_diagnosis": ("No feedback named a likely mistake.", "Ninguna explicación nombró un error probable."),
    "not_checked": ("Not checked (no code was given).", "No se comprobó (no se dio el código)."),
    "similarity_intro": (
        "Pairs whose code matches for at least {t} of each side (copydetect, MOSS-style fingerprints; renamed "
        "variables and reordered functions do not hide a match; the stubs and given code are ignored). A flag asks "
        "for a look: it never changes a grade.",
        "Parejas cuyo código coincide en al menos un {t} de cada lado (copydetect, huellas al estilo de MOSS; "
        "renombrar variables o reordenar funciones no oculta una coincidencia; se ignoran los esqueletos y el "
        "código dado). Una marca pide revisar: nunca cambia una nota."),
    "no_pairs": ("No pair is above the threshold.", "Ninguna pareja supera el umbral."),
    "side_by_side": ("Matching regions, side by side", "Regiones coincidentes, lado a lado"),
    "flagged": ("similar pairs flagged", "parejas similares marcadas"),
    "top": ("Most common mistake", "Error más común"),
}


def text(key: str, lang: str, **fields) -> str:
    en, es = TEXT[key]
    return say(en.format(**fields), es.format(**fields), lang)


def say(en: str, es: str, lang: str) -> str:
    """Text for the reader, escaped: English, Spanish, or both ("English / Español")."""
    return escape({"en": en, "es": es}.get(lang, f"{en} / {es}"))


def num(x) -> str:
    return "–" if x is None else f"{x:.3g}" if isinstance(x, float) and x != int(x) else f"{x:g}"


def histogram_svg(a: dict, lang: str) -> str:
    """The score distribution: a bar per bin, its count above it, the mean as a red line."""
    bins, top = a["histogram"], a["max_score"] or 1
    w, h, left, bottom = 480, 170, 30, 34
    most = max((b["count"] for b in bins), default=0) or 1
    bw = (w - left - 10) / len(bins)
    parts = [f'<svg class="hist" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="{say("score distribution", "distribución de notas", lang)} {escape(a["name"])}">',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" y2="{h - bottom}" stroke="#999"/>']
    for n, b in enumerate(bins):
        bh = (h - bottom - 18) * b["count"] / most
        x, y = left + n * bw + 2, h - bottom - bh
        parts.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bw - 4:.1f}" height="{bh:.1f}">'
                     f'<title>{num(b["low"])}–{num(b["high"])}: {b["count"]}</title></rect>')
        if b["count"]:
            parts.append(f'<text x="{x + (bw - 4) / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle">{b["count"]}</text>')
        parts.append(f'<text x="{left + n * bw:.1f}" y="{h - bottom + 13}" text-anchor="middle">'
                     f'{num(b["low"])}</text>')
    parts.append(f'<text x="{w - 10}" y="{h - bottom + 13}" text-anchor="end">{num(top)}</text>')
    if a["mean"] is not None:
        x = left + (w - left - 10) * a["mean"] / top
        parts.append(f'<line class="mean" x1="{x:.1f}" y1="8" x2="{x:.1f}" y2="{h - bottom}"/>')
    parts.append(f'<text x="{left + (w - left) / 2}" y="{h - 4}" text-anchor="middle">'
                 f'{say("points (red line: mean)", "puntos (línea roja: media)", lang)}</text></svg>')
    return "".join(parts)


def assignment_card(a: dict, lang: str) -> str:
    rows = []
    for t in sorted(a["tests"], key=lambda t: -t["share_lost"]):
        pct = 100 * t["share_lost"]
        rows.append(f'<tr><td>{escape(t["name"])}</td><td class="num">{num(t["max_score"])}</td>'
                    f'<td class="num" data-v="{pct:.1f}"><span class="lost" style="width:{pct * 0.8:.0f}px"></span>'
                    f'{pct:.0f}% ({t["lost"]})</td></tr>')
    return (f'<div class="card" id="{escape(a["name"])}"><div><h3>{escape(a["name"])}</h3>'
            f'<p class="stat">{say("graded", "calificados", lang)}: <b>{a["graded"]}</b> · '
            f'{say("mean", "media", lang)}: <b>{num(a["mean"])}</b> · {say("median", "mediana", lang)}: '
            f'<b>{num(a["median"])}</b> / {num(a["max_score"])}</p>{histogram_svg(a, lang)}</div>'
            f'<details open><summary>{text("lost_per_test", lang)}'
            f' ({len(a["tests"])})</summary><table class="sortable"><thead><tr><th>test</th>'
            f'<th class="num">{say("points", "puntos", lang)}</th>'
            f'<th class="num">{say("lost points", "perdieron puntos", lang)}</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></details></div>')


def names(students: list[str]) -> str:
    shown = ", ".join(escape(s) for s in students[:MAX_NAMES])
    more = len(students) - MAX_NAMES
    if more > 0:
        shown += (f' <details><summary>+{more}</summary>{", ".join(escape(s) for s in students[MAX_NAMES:])}'
                  "</details>")
    return shown


def diagnoses(data: dict, lang: str) -> str:
    found = data["diagnoses"]
    if not found:
        return f'<p class="muted">{text("no_diagnosis", lang)}</p>'
    rows = []
    for d in found:
        en, es = d["en"] or d["es"], d["es"] or d["en"]
        rows.append(f'<tr class="diagnosis"><td class="num count" data-v="{d["count"]}">{d["count"]}</td>'
                    f'<td>{escape(d["assignment"])}</td><td class="mistake">{say(en, es, lang)}</td>'
                    f'<td><details><summary>{len(d["tests"])}</summary>{"<br>".join(escape(t) for t in d["tests"])}'
                    f'</details></td><td>{names(d["students"])}</td></tr>')
    return (f'<table class="sortable" id="diagnoses"><thead><tr>'
            f'<th class="num">{say("students", "estudiantes", lang)}</th>'
            f'<th>{say("assignment", "tarea", lang)}</th><th>{say("likely mistake", "error probable", lang)}</th>'
            f'<th>tests</th><th>{say("who", "quiénes", lang)}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def similarity(data: dict, pairs: list, lang: str) -> str:
    sim = data["similarity"]
    if not sim["checked"]:
        return f'<p class="muted">{text("not_checked", lang)}</p>'
    share = f"{sim['threshold']:.0%}"
    intro = f'<p>{text("similarity_intro", lang, t=share)}</p>'
    if not pairs:
        return intro + f'<p id="no-pairs">{text("no_pairs", lang)}</p>'
    rows = []
    for p in pairs[:MAX_PAIRS]:
        rows.append(f'<tr class="pair"><td>{escape(p.assignment)}</td><td>{escape(p.a)}</td><td>{escape(p.b)}</td>'
                    f'<td class="num" data-v="{p.similarity:.3f}"><span class="flag">{p.similarity:.0%}</span>'
                    "</td></tr>")
    more = len(pairs) - MAX_PAIRS
    note = f'<p class="muted">+{more} ({escape("class-report.json")})</p>' if more > 0 else ""
    views = []
    for p in pairs[:MAX_VIEWS]:
        left, right = p.view()
        views.append(f'<details class="view"><summary>{escape(p.assignment)}: {escape(p.a)} ↔ {escape(p.b)} '
                     f'({p.similarity:.0%})</summary><div class="side"><div><b>{escape(p.a)}</b><pre>{left}</pre></div>'
                     f'<div><b>{escape(p.b)}</b><pre>{right}</pre></div></div></details>')
    return (intro + f'<table class="sortable" id="pairs"><thead><tr><th>{say("assignment", "tarea", lang)}</th>'
            f'<th>{say("student", "estudiante", lang)}</th><th>{say("student", "estudiante", lang)}</th>'
            f'<th class="num">{say("similarity", "similitud", lang)}</th></tr></thead><tbody>{"".join(rows)}</tbody>'
            f'</table>{note}<h3>{text("side_by_side", lang)}</h3>'
            + "".join(views))


def students(data: dict, lang: str) -> str:
    names_ = [a["name"] for a in data["assignments"]]
    head = "".join(f'<th class="num">{escape(a)}</th>' for a in names_)
    rows = []
    for s in data["students"]:
        link = (f'<a href="{escape(quote(s["feedback"]))}">{escape(s["name"])}</a>' if s["feedback"]
                else escape(s["name"]))
        cells = "".join(f'<td class="num" data-v="{-1 if s["scores"][a] is None else s["scores"][a]}">'
                        f'{num(s["scores"][a])}</td>' for a in names_)
        notes = "; ".join(escape(n) for n in s["notes"])
        rows.append(f'<tr><td>{link}</td>{cells}<td class="num">{num(s["total"])}</td>'
                    f'<td class="note">{notes}</td></tr>')
    return (f'<table class="sortable" id="students"><thead><tr><th>{say("student", "estudiante", lang)}</th>{head}'
            f'<th class="num">total</th><th>{say("grading notes", "notas de la calificación", lang)}</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def run_info(run: dict, lang: str) -> str:
    items = "".join(f"<dt>{escape(str(k))}</dt><dd>{escape(', '.join(map(str, v)) if isinstance(v, list) else str(v))}"
                    "</dd>" for k, v in run.items())
    return f"<dl>{items}</dl>"


def render(data: dict, pairs: list, lang: str) -> str:
    title = say("Class report", "Informe de la clase", lang)
    top = data["diagnoses"][0] if data["diagnoses"] else None
    lead = ""
    if top:
        mistake = say(top["en"] or top["es"], top["es"] or top["en"], lang)
        lead = (f'<p id="top-mistake">{text("top", lang)}: <b>{mistake}</b>'
                f' ({top["assignment"]}, {top["count"]} {say("students", "estudiantes", lang)})</p>')
    flagged = len(pairs)
    sections = [
        f'<h1>{title}</h1><p class="stat">{data["run"]["students"]} {say("students", "estudiantes", lang)} · '
        f'{escape(", ".join(data["run"]["assignments"]))} · {text("flagged", lang)}: '
        f'{flagged}</p>{lead}',
        f'<h2>{say("Most common diagnoses", "Diagnósticos más comunes", lang)}</h2>{diagnoses(data, lang)}',
        f'<h2>{say("Scores per assignment", "Notas por tarea", lang)}</h2>'
        + "".join(assignment_card(a, lang) for a in data["assignments"]),
        f'<h2>{say("Code similarity", "Similitud de código", lang)}</h2>{similarity(data, pairs, lang)}',
        f'<h2>{say("Students", "Estudiantes", lang)}</h2>{students(data, lang)}',
        f'<h2>{say("How this run was made", "Cómo se hizo esta calificación", lang)}</h2>{run_info(data["run"], lang)}',
    ]
    html_lang = "es" if lang == "es" else "en"
    return (f'<!DOCTYPE html><html lang="{html_lang}"><head><meta charset="utf-8"><title>{title}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}</style></head><body>'
            + "\n".join(sections) + f"<script>{SORT_JS}</script></body></html>\n")
