# ruff: noqa: E501 - the page is HTML, CSS and JavaScript, kept as written
"""The browser playground the HTTP face serves at ``/``: one self-contained page, no CDN.

Kept as a string in a module, not a package-data file, so that it ships with the code in
every install (editable or wheel) without a build change. The page uses only the public
API (``/v1/datasets``, ``/v1/ask/stream``), builds every node with ``textContent`` (answers
and plans are data, never markup), and works from the keyboard: the question box has the
focus, Enter asks, Shift+Enter is a new line, ``/`` comes back to the question.
"""

from __future__ import annotations

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nl2sparql playground</title>
<style>
:root { --fg:#1d232a; --muted:#5b6670; --line:#d9dee3; --bg:#fff; --accent:#0b63c4; --bad:#a4161a; --code:#f5f7f9; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
main { max-width: 980px; margin: 0 auto; padding: 12px 16px 48px; }
h1 { font-size: 1.25rem; margin: 8px 0 12px; }
h2 { font-size: 1rem; margin: 20px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
form { display: grid; gap: 8px; grid-template-columns: 1fr auto; align-items: end; }
label { font-size: .85rem; color: var(--muted); display:block; }
textarea, select, input { width: 100%; font: inherit; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px; }
textarea { resize: vertical; min-height: 2.8em; }
button { font: inherit; padding: 8px 16px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
         color: #fff; cursor: pointer; min-height: 44px; }
button.plain { background: #fff; color: var(--accent); min-height: 32px; padding: 4px 10px; }
button:focus-visible, textarea:focus-visible, select:focus-visible { outline: 3px solid #8bbcf0; outline-offset: 1px; }
.full { grid-column: 1 / -1; }
.row { display:flex; gap: 8px; flex-wrap: wrap; }
.row > div { flex: 1 1 200px; }
#status { color: var(--muted); min-height: 1.4em; margin-top: 6px; }
#error { color: var(--bad); border: 1px solid var(--bad); border-radius: 6px; padding: 8px 10px; margin-top: 10px; }
#plan { white-space: pre-wrap; }
pre { background: var(--code); padding: 10px; border-radius: 6px; overflow-x: auto; margin: 0; font-size: .9rem; }
.kw { color: #7b2fbe; font-weight: 600; } .var { color: #0b7a3e; } .iri { color: #0b63c4; } .str { color: #a35200; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.id { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; }
ul { margin: 0; padding-left: 20px; }
.hint { color: var(--muted); font-size: .85rem; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<main>
<h1>nl2sparql playground</h1>
<form id="ask" autocomplete="off">
  <div class="full row">
    <div><label for="dataset">Dataset</label><select id="dataset"></select></div>
    <div id="tokenbox" hidden><label for="token">Bearer token</label><input id="token" type="password"></div>
  </div>
  <div><label for="question">Question</label>
    <textarea id="question" rows="2" autofocus placeholder="Who is the sibling of Cy Quill?"></textarea></div>
  <button id="go" type="submit">Ask</button>
  <p class="hint full">Enter asks, Shift+Enter starts a new line, / comes back here.</p>
</form>
<div id="status" role="status" aria-live="polite"></div>
<div id="error" role="alert" hidden></div>
<section id="out" hidden>
  <h2>Answers</h2><div class="scroll"><table id="answers"><thead><tr><th>#</th><th>Name</th><th>Id</th></tr></thead>
  <tbody></tbody></table></div>
  <h2>SPARQL <button type="button" class="plain" id="copy">Copy</button></h2><pre id="sparql"></pre>
  <h2>Linked entities</h2><ul id="entities"></ul>
  <h2>Plan</h2><pre id="plan"></pre>
  <h2>Ranked plans</h2><div class="scroll"><table id="ranked"><thead><tr><th>Score</th><th>Shape</th>
  <th>Plan</th></tr></thead><tbody></tbody></table></div>
  <h2>Candidates</h2><div class="scroll"><table id="candidates"><thead><tr><th>Step</th><th>Statement</th>
  <th>Score</th></tr></thead><tbody></tbody></table></div>
  <h2>Trace</h2><div class="scroll"><table id="trace"><thead><tr><th>Stage</th><th>ms</th></tr></thead>
  <tbody></tbody></table></div>
</section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const KEYWORDS = /^(PREFIX|SELECT|DISTINCT|WHERE|FILTER|OPTIONAL|UNION|ORDER|BY|ASC|DESC|LIMIT|OFFSET|GROUP|HAVING|COUNT|ASK|AS|NOT|EXISTS|VALUES|BIND|MINUS|isLiteral|lang|langMatches|str|a)$/;

function el(tag, text, cls) { const n = document.createElement(tag); if (text !== undefined) n.textContent = text; if (cls) n.className = cls; return n; }
function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }
function token() { return sessionStorage.getItem("nl2sparql-token") || ""; }
function headers() { const t = token(); return t ? {"Authorization": "Bearer " + t} : {}; }
function showError(text) { const e = $("error"); e.textContent = text; e.hidden = !text; }

function highlight(sparql) {
  const pre = $("sparql"); clear(pre);
  const re = /(<[^>\\s]*>)|("(?:[^"\\\\]|\\\\.)*")|([?$][A-Za-z0-9_]+)|([A-Za-z][A-Za-z0-9_]*)|(\\s+|.)/g;
  let m;
  while ((m = re.exec(sparql)) !== null) {
    if (m[1]) pre.appendChild(el("span", m[1], "iri"));
    else if (m[2]) pre.appendChild(el("span", m[2], "str"));
    else if (m[3]) pre.appendChild(el("span", m[3], "var"));
    else if (m[4] && KEYWORDS.test(m[4])) pre.appendChild(el("span", m[4], "kw"));
    else pre.appendChild(document.createTextNode(m[0]));
  }
}

function row(tbody, cells, classes) {
  const tr = el("tr"); cells.forEach((c, i) => tr.appendChild(el("td", String(c), classes && classes[i]))); tbody.appendChild(tr);
}

function render(result, stages) {
  $("out").hidden = false;
  const answers = $("answers").tBodies[0]; clear(answers);
  (result.answers || []).forEach((a, i) => row(answers, [i + 1, a.name || a.id, a.id], [null, "name", "id"]));
  if (result.sparql) highlight(result.sparql); else $("sparql").textContent = "(no query)";
  const ents = $("entities"); clear(ents);
  Object.entries(result.entities || {}).forEach(([id, name]) => ents.appendChild(el("li", (name || id) + "  (" + id + ")")));
  $("plan").textContent = (result.plan || []).join("\\n") || "(no plan)";
  const ranked = $("ranked").tBodies[0]; clear(ranked);
  (result.candidates || []).forEach((c) => row(ranked, [c.score.toFixed(3), c.shape, (c.plan || []).join(" ")]));
  const cands = $("candidates").tBodies[0]; clear(cands);
  (result.recalled || []).forEach((r) => (r.candidates || []).slice(0, 3).forEach((c, i) =>
    row(cands, [i ? "" : r.step, c.description, c.score.toFixed(3)])));
  const trace = $("trace").tBodies[0]; clear(trace);
  stages.forEach((s) => row(trace, [s.stage, s.elapsed_ms.toFixed(1)]));
  (result.attempts || []).forEach((a, i) => row(trace, ["attempt " + (i + 1), (a.error || (a.answers + " answers"))]));
}

async function loadDatasets() {
  const reply = await fetch("v1/datasets", {headers: headers()});
  if (reply.status === 401) { $("tokenbox").hidden = false; showError("This server needs a bearer token: enter it above."); return; }
  const body = await reply.json();
  const select = $("dataset"); clear(select);
  body.datasets.forEach((d) => { const o = el("option", d.name + " - " + d.iri); o.value = d.iri; o.selected = d.default; select.appendChild(o); });
}

async function ask(event) {
  if (event) event.preventDefault();
  const question = $("question").value.trim();
  if (!question) { showError("Type a question first."); return; }
  showError(""); $("go").disabled = true; $("status").textContent = "Asking...";
  const params = new URLSearchParams({question: question, dataset: $("dataset").value || ""});
  const stages = []; let result = null;
  try {
    const reply = await fetch("v1/ask/stream?" + params, {headers: headers()});
    if (!reply.ok) {
      let message = reply.status + " " + reply.statusText;
      try { message = (await reply.json()).error.message; } catch (e) { /* not JSON */ }
      if (reply.status === 401) $("tokenbox").hidden = false;
      throw new Error(message);
    }
    const reader = reply.body.getReader(); const decoder = new TextDecoder(); let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      let cut;
      while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
        const frame = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
        const name = (frame.match(/^event: (.*)$/m) || [])[1];
        const data = JSON.parse((frame.match(/^data: (.*)$/m) || [])[1] || "{}");
        if (name === "error") throw new Error(data.error.message);
        stages.push(data); result = data.result;
        $("status").textContent = "Stage: " + name;
      }
    }
    if (!result) throw new Error("the server ended the answer early");
    render(result, stages);
    const n = (result.answers || []).length;
    $("status").textContent = n + (n === 1 ? " answer" : " answers");
    if (result.error) showError(result.error);
  } catch (e) {
    $("status").textContent = ""; showError(e.message);
  } finally { $("go").disabled = false; }
}

$("ask").addEventListener("submit", ask);
$("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); ask(); } });
$("token").addEventListener("change", (e) => { sessionStorage.setItem("nl2sparql-token", e.target.value); loadDatasets(); });
$("copy").addEventListener("click", async () => {
  const text = $("sparql").textContent;
  try { await navigator.clipboard.writeText(text); $("status").textContent = "SPARQL copied"; }
  catch (e) { const r = document.createRange(); r.selectNodeContents($("sparql")); const s = getSelection(); s.removeAllRanges(); s.addRange(r);
              $("status").textContent = "SPARQL selected: press Ctrl+C"; }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "/" && document.activeElement !== $("question") && document.activeElement.tagName !== "INPUT") {
    e.preventDefault(); $("question").focus();
  }
});
loadDatasets().catch((e) => showError("Cannot list the datasets: " + e.message));
</script>
</body>
</html>
"""
