// research web app. Everything that comes from a filing, a question or the
// server is put on the page with textContent, never as HTML.
"use strict";

(function () {
  const KEY = "research.key";
  const $ = (id) => document.getElementById(id);

  // el makes an element with text (never HTML) and attributes.
  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // ---- API ----------------------------------------------------------------

  // APIError is a refusal of the API, with its message as a sentence.
  class APIError extends Error {
    constructor(status, message, field) { super(message); this.status = status; this.field = field; }
  }

  function authHeaders() {
    const h = {};
    const k = sessionStorage.getItem(KEY);
    if (k) h["Authorization"] = "Bearer " + k;
    return h;
  }

  async function readError(resp) {
    let msg = "", field = "";
    try { const b = await resp.json(); msg = b.error || ""; field = b.field || ""; } catch (_) { /* not JSON */ }
    if (!msg) msg = "the server answered " + resp.status + " " + resp.statusText;
    return new APIError(resp.status, sentence(msg), field);
  }

  // sentence makes an API message read as a sentence on the page.
  function sentence(s) {
    s = String(s).trim();
    if (!s) return s;
    s = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  async function api(method, path, body) {
    const headers = authHeaders();
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    let resp;
    try { resp = await fetch(path, init); } catch (e) {
      throw new APIError(0, "The server cannot be reached. Check that research serve is running, then try again.");
    }
    if (!resp.ok) {
      const err = await readError(resp);
      if (resp.status === 401) onUnauthorized(err);
      throw err;
    }
    return resp.json();
  }

  // ---- notices ------------------------------------------------------------

  function notify(msg, info) {
    const n = $("notice");
    n.textContent = msg;
    n.className = info ? "notice info" : "notice";
    n.hidden = !msg;
  }
  function fail(err) { notify(err && err.message ? err.message : String(err)); }

  // ---- sign-in ------------------------------------------------------------

  let needKey = false;
  let localMode = false; // research serve without --db: no key, no batches

  function onUnauthorized(err) {
    needKey = true;
    sessionStorage.removeItem(KEY);
    show("signin-view");
    $("signout").hidden = true;
    notify(err.message);
    $("key").focus();
  }

  $("signin-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const k = $("key").value.trim();
    if (!k) { notify("Enter the API key."); $("key").focus(); return; }
    sessionStorage.setItem(KEY, k);
    try {
      await api("GET", "/v1/corpus");
    } catch (e) {
      if (e.status !== 401) fail(e);
      return;
    }
    $("key").value = "";
    notify("");
    $("signout").hidden = false;
    route();
  });

  $("signout").addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    $("signout").hidden = true;
    location.hash = "#/";
    show("signin-view");
  });

  // ---- views --------------------------------------------------------------

  const views = ["signin-view", "ask-view", "run-view", "runs-view", "corpus-view", "ledger-view", "budget-view", "doc-view", "batch-view"];
  function show(id) {
    for (const v of views) $(v).hidden = v !== id;
  }

  let stopStream = null;

  function route() {
    if (stopStream) { stopStream(); stopStream = null; }
    notify("");
    if (needKey && !sessionStorage.getItem(KEY)) { show("signin-view"); $("key").focus(); return; }
    const h = location.hash.replace(/^#/, "") || "/";
    let m;
    if ((m = h.match(/^\/run\/([A-Za-z0-9._-]{1,128})\/ledger$/))) { openLedger(m[1]); return; }
    if ((m = h.match(/^\/run\/([A-Za-z0-9._-]{1,128})\/budget$/))) { openBudget(m[1]); return; }
    if ((m = h.match(/^\/run\/([A-Za-z0-9._-]{1,128})\/doc\/([^/]{1,300})(?:\/(\d{1,6}))?$/))) {
      let eid;
      try { eid = decodeURIComponent(m[2]); } catch (_) { eid = m[2]; }
      openDocument(m[1], eid, m[3] ? +m[3] : 0);
      return;
    }
    if (h === "/batch") { openBatch(""); return; }
    if ((m = h.match(/^\/batch\/([A-Za-z0-9._-]{1,128})$/))) { openBatch(m[1]); return; }
    if ((m = h.match(/^\/run\/([A-Za-z0-9._-]{1,128})$/))) { openRun(m[1]); return; }
    if (h === "/runs") { show("runs-view"); loadRuns(); return; }
    if (h === "/corpus") { show("corpus-view"); loadCorpus(); return; }
    show("ask-view");
  }
  window.addEventListener("hashchange", route);

  // ---- ask ----------------------------------------------------------------

  // readAsk checks the form and returns the request body, or throws a
  // message naming what to fix.
  function readAsk() {
    const q = $("question").value.trim();
    if (!q) throw fieldMsg("question", "Enter a question.");
    const body = { question: q, mode: $("mode").value };
    const t = $("tickers").value.trim();
    if (t) {
      const tickers = t.split(/[\s,]+/).filter(Boolean).map((s) => s.toUpperCase());
      for (const s of tickers) {
        if (!/^[A-Z0-9][A-Z0-9.\-]{0,11}$/.test(s)) throw fieldMsg("tickers", "\u201c" + s + "\u201d is not a ticker: use letters, digits, '.' or '-', such as AAPL or BRK.B.");
      }
      body.tickers = tickers;
    }
    const b = {};
    const spend = $("spend").value.trim();
    if (spend) {
      if (!/^\d+(\.\d+)?$/.test(spend)) throw fieldMsg("spend", "Spend must be an amount in USD such as 0.50.");
      b.spend_usd = spend;
    }
    const calls = $("calls").value.trim();
    if (calls) {
      if (!/^\d+$/.test(calls) || +calls < 1) throw fieldMsg("calls", "Tool calls must be a whole number of at least 1.");
      b.max_calls = +calls;
    }
    const secs = $("timeout").value.trim();
    if (secs) {
      if (!/^\d+$/.test(secs) || +secs < 1) throw fieldMsg("timeout", "Time must be a whole number of seconds, at least 1.");
      b.timeout_seconds = +secs;
    }
    if (Object.keys(b).length) body.budget = b;
    return body;
  }
  function fieldMsg(id, msg) { const e = new Error(msg); e.input = id; return e; }

  // apiField maps the API's field names to the form's inputs.
  const apiField = { question: "question", tickers: "tickers", mode: "mode", "budget.spend_usd": "spend", "budget.max_calls": "calls", "budget.timeout_seconds": "timeout" };

  function formError(e) {
    const id = e.input || apiField[e.field] || (e.field && apiField[e.field.replace(/\[\d+\]$/, "")]);
    if (e.field && id && $(id) && e.message.toLowerCase().startsWith(e.field.toLowerCase() + ": ")) {
      // Name the field as the form does: "Tool calls: ..." for budget.max_calls.
      const label = document.querySelector('label[for="' + id + '"]');
      const name = label ? label.firstChild.textContent.trim() : e.field;
      e = new APIError(e.status, name + ": " + e.message.slice(e.field.length + 2), e.field);
      e.input = id;
    }
    fail(e);
    if (id && $(id)) { $(id).setAttribute("aria-invalid", "true"); $(id).focus(); }
  }
  function clearInvalid() {
    for (const id of Object.values(apiField)) $(id).removeAttribute("aria-invalid");
  }

  $("ask-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearInvalid();
    let body;
    try { body = readAsk(); } catch (e) { formError(e); return; }
    $("run").disabled = true;
    try {
      const r = await api("POST", "/v1/runs", body);
      location.hash = "#/run/" + r.run_id;
    } catch (e) { formError(e); } finally { $("run").disabled = false; }
  });

  $("dryrun").addEventListener("click", async () => {
    clearInvalid();
    let body;
    try { body = readAsk(); } catch (e) { formError(e); return; }
    $("dryrun").disabled = true;
    try {
      renderPlan(await api("POST", "/v1/plan", body));
      notify("");
    } catch (e) { formError(e); } finally { $("dryrun").disabled = false; }
  });

  function renderPlan(p) {
    $("plan").hidden = false;
    const g = p.graph;
    const route = p.route || {};
    const parts = [];
    if (g) parts.push((g.planner || "rules") + " planner: " + g.requirements.length + " requirements, " + g.nodes.length + " tool calls");
    if (route.issuers && route.issuers.length) parts.push("issuers " + route.issuers.join(", "));
    if (route.not_covered && route.not_covered.length) parts.push("not in the corpus: " + route.not_covered.join(", "));
    $("plan-summary").textContent = parts.join("; ") || "No plan: see the notes.";
    const worst = $("plan-worst"); clear(worst);
    for (const [k, v] of Object.entries(p.worst_case || {})) {
      if (v === "0") continue;
      worst.append(el("dt", k), el("dd", v + ((p.exceeds || []).includes(k) ? " (above the limit: the run would stop here)" : "")));
    }
    const reqs = $("plan-reqs"); clear(reqs);
    for (const r of (g && g.requirements) || []) {
      reqs.append(el("li", (r.issuer ? r.issuer + ": " : "") + r.need + (r.required ? "" : " (optional)")));
    }
    const notes = $("plan-notes"); clear(notes);
    for (const n of p.notes || []) notes.append(el("li", n));
    $("plan").scrollIntoView({ block: "nearest" });
  }

  // ---- run view -----------------------------------------------------------

  const statusMeaning = {
    queued: "waiting for its turn to start",
    running: "gathering evidence",
    supported: "every part of the question is answered with cited evidence",
    partial: "some parts are answered with cited evidence; the gaps say what is missing",
    insufficient_evidence: "the corpus did not hold enough evidence to answer",
    conflicting_evidence: "sources disagree; the contradictions say where",
    budget_exhausted: "the budget ran out before the question was answered",
    refused: "the question is out of scope (advice, trades or rule overrides are refused)",
    failed: "the run stopped on an error before it could answer",
  };

  function setStatus(s) {
    const b = $("run-status");
    b.textContent = s;
    b.className = "badge " + s.replace(/[^a-z_]/g, "");
    $("run-status-meaning").textContent = statusMeaning[s] ? "\u2014 " + statusMeaning[s] : "";
  }

  let run = null; // the run shown: { id, reqs: Map, calls: Map, limits, started, seen:Set }

  async function openRun(id) {
    show("run-view");
    run = { id, reqs: new Map(), calls: new Map(), lastSeq: 0, done: false, gaps: new Set(), started: null, tools: 0, limits: null };
    $("run-id").textContent = id;
    $("run-question").textContent = "";
    $("ledger-link").setAttribute("href", "#/run/" + id + "/ledger");
    $("budget-link").setAttribute("href", "#/run/" + id + "/budget");
    $("answer-box").hidden = true;
    for (const x of ["requirements", "gaps", "events", "meters"]) clear($(x));
    clear($("calls-table").tBodies[0]);
    setStatus("…");
    let v;
    try { v = await api("GET", "/v1/runs/" + encodeURIComponent(id)); } catch (e) { fail(e); return; }
    if (!run || run.id !== id) return;
    $("run-question").textContent = v.question || "";
    setStatus(v.status);
    if (v.created) run.started = Date.parse(v.created);
    stream(id);
  }

  // stream follows the run's events over fetch (the API needs the key as a
  // header, which EventSource cannot send), resuming after the last event
  // id on every reconnect.
  function stream(id) {
    const ctl = new AbortController();
    let stopped = false, retry = 1000, failures = 0;
    stopStream = () => { stopped = true; ctl.abort(); };
    const tick = setInterval(renderMeters, 1000);
    const cleanup = () => clearInterval(tick);
    (async function loop() {
      while (!stopped && run && run.id === id && !run.done) {
        try {
          const headers = authHeaders();
          headers["Accept"] = "text/event-stream";
          if (run.lastSeq > 0) headers["Last-Event-ID"] = String(run.lastSeq);
          const resp = await fetch("/v1/runs/" + encodeURIComponent(id) + "/events", { headers, signal: ctl.signal, cache: "no-store" });
          if (!resp.ok) {
            const err = await readError(resp);
            if (resp.status === 401) { onUnauthorized(err); break; }
            if (resp.status !== 429 && resp.status < 500) { fail(err); break; }
            throw err;
          }
          failures = 0;
          await readSSE(resp.body, (ev) => {
            if (ev.retry) { retry = ev.retry; return; }
            onEvent(ev);
          });
        } catch (e) {
          if (stopped) break;
          failures++;
          if (failures > 3) notify("The event stream was interrupted; reconnecting\u2026", true);
        }
        if (!run || run.done || stopped) break;
        await new Promise((r) => setTimeout(r, Math.min(retry * Math.max(1, failures), 10000)));
      }
      cleanup();
      if (run && run.id === id && run.done) renderMeters();
    })();
  }

  // readSSE parses a text/event-stream body and calls on for each event.
  async function readSSE(body, on) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "", cur = { data: "" };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let i;
      while ((i = buf.search(/\r?\n/)) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + (buf[i] === "\r" ? 2 : 1));
        if (line === "") {
          if (cur.event || cur.data) on(cur);
          cur = { data: "" };
          continue;
        }
        if (line.startsWith(":")) continue;
        const c = line.indexOf(":");
        const field = c < 0 ? line : line.slice(0, c);
        let val = c < 0 ? "" : line.slice(c + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "event") cur.event = val;
        else if (field === "data") cur.data += (cur.data ? "\n" : "") + val;
        else if (field === "id") cur.id = val;
        else if (field === "retry" && /^\d+$/.test(val)) on({ retry: +val });
      }
    }
  }

  function onEvent(ev) {
    let d;
    try { d = JSON.parse(ev.data); } catch (_) { return; }
    if (ev.event === "result") { run.done = true; renderResult(d); return; }
    if (ev.event !== "progress") return;
    const seq = +(ev.id || d.seq || 0);
    if (seq && seq <= run.lastSeq) return; // already shown
    if (seq) run.lastSeq = seq;
    progress(d);
  }

  function progress(e) {
    const at = e.at ? new Date(e.at) : null;
    if (!run.started && at) run.started = at.getTime();
    const line = (at ? at.toISOString().slice(11, 23) + " " : "") + e.kind + (e.subject ? " " + e.subject : "") + (e.message ? ": " + e.message : "");
    $("events").append(el("li", line, e.seq ? { "data-seq": String(e.seq) } : undefined));
    let data = null;
    if (e.data) data = e.data;
    switch (e.kind) {
      case "run_resumed":
        setStatus("running");
        break;
      case "plan_graph":
        setStatus("running");
        if (data && data.requirements) for (const r of data.requirements) {
          if (!run.reqs.has(r.id)) addReq(r.id, (r.issuer ? r.issuer + ": " : "") + r.need, r.required);
        }
        break;
      case "requirement": {
        const st = (e.message || "").replace(/^status /, "").split(",")[0];
        setReq(e.subject, st, e.message);
        break;
      }
      case "node_started":
        if (data) callRow(data.node, data.tool, "running\u2026", "", "");
        break;
      case "node_finished":
        if (data) { run.tools++; callRow(data.node, data.tool, fmtDur(data.duration_ns), data.results || 0, data.new_evidence || 0); }
        break;
      case "node_skipped":
        if (data) callRow(data.node, data.tool, "skipped", "", "");
        break;
      case "decision":
        if (e.message && /gap|stop rule|failed|retry|exhaust|missing/i.test(e.message)) addGap(e.message);
        break;
      case "run_finished":
        break;
    }
    renderMeters();
  }

  function addReq(id, text, required) {
    const li = el("li", null, { id: "req-" + id });
    li.append(el("span", text + (required === false ? " (optional)" : "")), document.createTextNode(" "), el("span", "pending", { class: "state" }));
    run.reqs.set(id, li);
    $("requirements").append(li);
  }
  function setReq(id, status, message) {
    if (!id) return;
    if (!run.reqs.has(id)) addReq(id, id);
    const li = run.reqs.get(id);
    li.className = status === "supported" ? "met" : (status === "missing" || status === "conflicting") ? "gap" : "";
    li.querySelector(".state").textContent = message || status;
    li.setAttribute("aria-label", li.firstChild.textContent + ": " + status);
  }
  function addGap(text) {
    if (run.gaps.has(text)) return;
    run.gaps.add(text);
    $("gaps").append(el("li", text));
  }
  function callRow(node, tool, took, results, neu) {
    let tr = run.calls.get(node);
    if (!tr) {
      tr = el("tr");
      for (let i = 0; i < 5; i++) tr.append(el("td"));
      run.calls.set(node, tr);
      $("calls-table").tBodies[0].append(tr);
    }
    const vals = [node, tool || "", took, results, neu];
    vals.forEach((v, i) => { tr.cells[i].textContent = String(v); });
  }
  function fmtDur(ns) {
    if (!ns) return "";
    const ms = ns / 1e6;
    return ms < 1000 ? ms.toFixed(ms < 10 ? 1 : 0) + " ms" : (ms / 1000).toFixed(2) + " s";
  }

  // renderMeters shows each budget dimension: while the run goes, the calls
  // made and the time taken; once it has its result, every dimension the
  // result reports against its limit.
  function renderMeters() {
    if (!run) return;
    const box = $("meters"); clear(box);
    if (run.budget) {
      const lim = run.budget.limits || {}, used = run.budget.used || {};
      for (const k of Object.keys(used)) meter(box, k, used[k], lim[k], k === run.budget.exhausted);
      return;
    }
    meter(box, "tool calls", run.tools, null);
    if (run.started) meter(box, "wall clock (s)", ((Date.now() - run.started) / 1000).toFixed(0), null);
  }
  function meter(box, name, used, limit, exhausted) {
    const d = el("div", null, { class: "meter" });
    const lab = el("div", null, { class: "label" });
    const u = Number(used), l = limit === null || limit === undefined ? null : Number(limit);
    lab.append(el("span", name), el("span", String(used) + (l !== null ? " / " + String(limit) : "") + (exhausted ? " (exhausted)" : "")));
    const bar = el("div", null, { class: "bar", role: "meter", "aria-label": name, "aria-valuemin": "0", "aria-valuenow": String(u) });
    const fill = el("div", null, { class: "fill" });
    if (l) { const pct = Math.min(100, (u / l) * 100); fill.style.width = pct + "%"; bar.setAttribute("aria-valuemax", String(l)); if (pct >= 90) d.classList.add("high"); }
    bar.append(fill);
    d.append(lab, bar);
    box.append(d);
  }

  function renderResult(r) {
    run.done = true;
    setStatus(r.status);
    if (r.question) $("run-question").textContent = r.question;
    if (r.budget) run.budget = r.budget;
    if (r.status === "failed" && r.message) { notify(sentence(r.message)); return; }
    for (const q of r.requirements || []) {
      if (!run.reqs.has(q.id)) addReq(q.id, (q.issuer ? q.issuer + ": " : "") + q.description, q.required);
      setReq(q.id, q.status, q.status);
    }
    for (const g of r.gaps || []) addGap((g.issuer ? g.issuer + ": " : "") + g.what + (g.why ? " \u2014 " + g.why : ""));
    for (const n of r.not_covered || []) addGap(n + ": not in the corpus");
    if (r.refusal_reason) addGap("refused: " + r.refusal_reason);
    $("answer-box").hidden = false;
    renderAnswer(r);
    renderMeters();
  }

  function citeLabel(c) {
    const parts = [c.ticker, c.form, c.fiscal_year ? "FY" + c.fiscal_year : "", c.section, c.page ? "page " + c.page : ""].filter(Boolean);
    return parts.join(" \u00b7 ");
  }

  function renderAnswer(r) {
    const byIndex = new Map();
    for (const c of r.citations || []) byIndex.set(c.index, c);
    const a = $("answer"); clear(a);
    const text = r.answer || "";
    const re = /\[(\d+)\]/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      a.append(document.createTextNode(text.slice(last, m.index)));
      const c = byIndex.get(+m[1]);
      if (c) {
        const link = el("a", "[" + m[1] + "]", { href: "#cite-" + m[1], class: "cite", "aria-label": "citation " + m[1] + ": " + citeLabel(c), "data-index": m[1] });
        link.addEventListener("click", (e) => { e.preventDefault(); openSource(r.run_id || run.id, c); });
        a.append(link);
      } else a.append(document.createTextNode(m[0]));
      last = re.lastIndex;
    }
    a.append(document.createTextNode(text.slice(last)));

    const ol = $("citations"); clear(ol);
    for (const c of r.citations || []) {
      const li = el("li", null, { id: "cite-" + c.index, value: String(c.index) });
      const btn = el("button", "\u201c" + c.excerpt + "\u201d", { type: "button", class: "link", "data-index": String(c.index) });
      btn.addEventListener("click", () => openSource(r.run_id || run.id, c));
      li.append(btn, el("span", citeLabel(c), { class: "where" }));
      ol.append(li);
    }
    const figs = r.figures || [];
    $("figures-box").hidden = figs.length === 0;
    const tb = $("figures").tBodies[0]; clear(tb);
    for (const f of figs) {
      const tr = el("tr");
      tr.append(el("td", f.issuer), el("td", f.metric), el("td", f.period), el("td", f.value + (f.unit && f.unit !== "pure" ? " " + f.unit : "")));
      tb.append(tr);
    }
    const cs = r.contradictions || [];
    $("contradictions-box").hidden = cs.length === 0;
    const cl = $("contradictions"); clear(cl);
    for (const c of cs) cl.append(el("li", (c.requirement || "") + ": " + (c.difference || "") + " (" + (c.evidence || []).join(", ") + ")"));
  }

  // table makes a captioned table of rows, each cell text or a node.
  function table(caption, head, rows) {
    const box = el("div", null, { class: "scroll" });
    const t = el("table");
    t.append(el("caption", caption + " (" + rows.length + ")"));
    const tr = el("tr");
    for (const h of head) tr.append(el("th", h, { scope: "col" }));
    const thead = el("thead");
    thead.append(tr);
    t.append(thead);
    const tb = el("tbody");
    for (const r of rows) {
      const row = el("tr");
      for (const c of r) {
        const td = el("td");
        if (c instanceof Node) td.append(c); else td.textContent = c === undefined || c === null ? "" : String(c);
        row.append(td);
      }
      tb.append(row);
    }
    t.append(tb);
    box.append(t);
    return box;
  }

  let ledgerJSON = null;

  async function openLedger(id) {
    show("ledger-view");
    $("ledger-run").textContent = id;
    $("ledger-back").setAttribute("href", "#/run/" + id);
    $("ledger-budget").setAttribute("href", "#/run/" + id + "/budget");
    const box = $("ledger-tables"); clear(box);
    let l;
    try { l = await api("GET", "/v1/runs/" + encodeURIComponent(id) + "/ledger"); } catch (e) { fail(e); return; }
    ledgerJSON = l;
    const short = (s, n) => (s && s.length > n ? s.slice(0, n) + "\u2026" : s || "");
    const reqs = Object.values(l.requirements || {});
    box.append(
      el("p", "Question: " + l.task + " \u2014 " + l.status + ", " + l.mode + " mode."),
      table("Requirements", ["Id", "Issuer", "Period", "Need", "Status", "Evidence"],
        reqs.map((r) => [r.id, r.issuer, r.period, r.description, r.status || "pending", (r.evidence || []).length])),
      table("Evidence", ["Id", "Source", "Excerpt", ""], (l.evidence || []).map((e) => {
        const b = el("button", "View", { type: "button", "aria-label": "view evidence " + e.id + " in its filing" });
        b.addEventListener("click", () => openSource(id, { index: e.id, evidence_id: e.id, excerpt: e.excerpt }));
        return [e.id, [e.ticker, e.form, e.period, e.section, e.page ? "page " + e.page : ""].filter(Boolean).join(" \u00b7 "), short(e.excerpt, 240), b];
      })),
      table("Facts", ["Concept", "Value", "Unit", "Period", "Evidence"], (l.facts || []).map((f) => [f.concept, f.value, f.unit, f.period, f.evidence_id])),
      table("Contradictions", ["Requirement", "Evidence", "Difference"], (l.contradictions || []).map((c) => [c.requirement, (c.evidence || []).join(", "), c.difference])),
      table("Search history", ["Query", "Filters", "Candidates", "New evidence"], (l.search_history || []).map((q) => [q.query, Object.entries(q.filters || {}).map(([k, v]) => k + "=" + v).join(" "), q.candidates_seen, q.new_evidence])),
      table("Tool calls", ["Id", "Tool", "Requirement", "Took", "Error"], (l.tool_calls || []).map((c) => [c.id, c.tool, c.requirement, c.finished && c.started ? (Date.parse(c.finished) - Date.parse(c.started)) + " ms" : "", c.error])),
      table("Events", ["Seq", "At (UTC)", "Kind", "Subject", "Message"], (l.events || []).map((e) => [e.seq, (e.at || "").slice(11, 23), e.kind, e.subject, e.message])),
    );
  }

  $("ledger-json").addEventListener("click", () => {
    if (!ledgerJSON) return;
    const url = URL.createObjectURL(new Blob([JSON.stringify(ledgerJSON, null, 2)], { type: "application/json" }));
    const a = el("a", null, { href: url, download: "ledger-" + ledgerJSON.run_id + ".json" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  });

  // ---- source viewer ------------------------------------------------------

  let sourceCtx = { run: "", cite: null, context: 1500 };

  async function openSource(runID, c, context) {
    const d = $("source");
    sourceCtx = { run: runID, cite: c, context: context || 1500 };
    $("source-error").hidden = true;
    const meta = $("source-meta"); clear(meta);
    const pre = $("source-text"); clear(pre);
    $("source-h").textContent = "Source [" + c.index + "]";
    $("source-doc").setAttribute("href", docHash(runID, c.evidence_id, 0));
    if (!d.open) d.showModal();
    let s;
    try {
      s = await api("GET", "/v1/runs/" + encodeURIComponent(runID) + "/evidence/" + encodeURIComponent(c.evidence_id) + "?context=" + sourceCtx.context);
    } catch (e) {
      $("source-error").textContent = e.message;
      $("source-error").hidden = false;
      return;
    }
    const rows = [["Issuer", s.company ? s.company + " (" + s.ticker + ")" : s.ticker], ["Form", s.form],
      ["Period", "fiscal year " + s.fiscal_year + ", ended " + s.period_end], ["Section", s.section || "\u2014"],
      ["Page", s.page ? String(s.page) : "\u2014"], ["Span", "bytes " + s.start + "\u2013" + s.end + " of " + s.document_length]];
    for (const [k, v] of rows) meta.append(el("dt", k), el("dd", v));
    // The citation quotes part of the evidence span, or all of it: that
    // part is highlighted, the rest of the span underlined.
    let i = s.span.indexOf(c.excerpt);
    let n = c.excerpt.length;
    if (!c.excerpt || i < 0) { i = 0; n = s.span.length; }
    const mark = el("mark", s.span.slice(i, i + n), { id: "source-span" });
    const span = el("span", null, { class: "evidence" });
    span.append(document.createTextNode(s.span.slice(0, i)), mark, document.createTextNode(s.span.slice(i + n)));
    pre.append(document.createTextNode((s.text_start > 0 ? "\u2026" : "") + s.before), span,
      document.createTextNode(s.after + (s.text_end < s.document_length ? "\u2026" : "")));
    $("source-more").hidden = s.text_start === 0 && s.text_end >= s.document_length;
    mark.scrollIntoView({ block: "center" });
    pre.focus();
  }

  $("source-close").addEventListener("click", () => $("source").close());
  // The whole document replaces the page's view: the dialog closes first.
  $("source-doc").addEventListener("click", () => $("source").close());
  $("source-more").addEventListener("click", () => {
    if (sourceCtx.cite) openSource(sourceCtx.run, sourceCtx.cite, Math.min(20000, sourceCtx.context * 4));
  });

  // ---- budget audit -------------------------------------------------------

  const dimensionNames = {
    spend_usd: "Spend (USD)", model_calls: "Model calls", search_calls: "Search calls", read_calls: "Read calls",
    fact_calls: "Fact look-ups", calculate_calls: "Calculations", input_tokens: "Input tokens", output_tokens: "Output tokens",
    retrieval_candidates: "Retrieval candidates", calls: "All calls", wall_clock_ms: "Time (ms)",
  };
  const scopeNames = { run: "Run", tenant_day: "Tenant's day (UTC)" };

  async function openBudget(id) {
    show("budget-view");
    $("budget-run").textContent = id;
    $("budget-back").setAttribute("href", "#/run/" + id);
    $("budget-ledger").setAttribute("href", "#/run/" + id + "/ledger");
    const box = $("budget-scopes"); clear(box);
    $("budget-note").hidden = true;
    let a;
    try { a = await api("GET", "/v1/runs/" + encodeURIComponent(id) + "/budget"); } catch (e) { fail(e); return; }
    if (a.note) { $("budget-note").textContent = sentence(a.note); $("budget-note").hidden = false; }
    const amount = (v, none) => (v === null || v === undefined ? none : v);
    for (const sc of a.scopes || []) {
      const rows = (sc.dimensions || []).map((d) => [
        (dimensionNames[d.dimension] || d.dimension) + (sc.exhausted === d.dimension ? " (exhausted)" : ""),
        amount(d.limit, "unlimited"), amount(d.reserved, "\u2014"), d.settled, amount(d.released, "\u2014"), amount(d.remaining, "unlimited"),
      ]);
      const t = table((scopeNames[sc.kind] || sc.kind) + " " + sc.id, ["Dimension", "Limit", "Reserved", "Settled", "Released", "Remaining"], rows);
      t.classList.add("audit");
      t.querySelector("table").setAttribute("data-scope", sc.kind);
      box.append(t);
      const facts = [];
      if (sc.reservations) {
        const r = sc.reservations;
        facts.push("reservations: " + (r.reserved || 0) + " open, " + (r.settled || 0) + " settled, " + (r.released || 0) + " released, " + (r.expired || 0) + " expired (swept)");
      }
      facts.push((sc.rejected_settlements || 0) + " settlements refused");
      facts.push("wall clock limit: " + (sc.wall_clock_ms ? (sc.wall_clock_ms / 1000) + " s" : "none"));
      box.append(el("p", sentence(facts.join("; ")), { class: "hint" }));
    }
    if (!(a.scopes || []).length && !a.note) notify("No budget is recorded for this run.", true);
  }

  // ---- whole document -----------------------------------------------------

  function docHash(runID, eid, part) {
    return "#/run/" + runID + "/doc/" + encodeURIComponent(eid) + (part ? "/" + part : "");
  }

  let docState = null; // { run, eid, part, parts, spanPart }

  async function openDocument(runID, eid, part) {
    show("doc-view");
    $("doc-back").setAttribute("href", "#/run/" + runID);
    const meta = $("doc-meta"); clear(meta);
    const pre = $("doc-text"); clear(pre);
    $("doc-part").textContent = "";
    let d;
    try {
      d = await api("GET", "/v1/runs/" + encodeURIComponent(runID) + "/evidence/" + encodeURIComponent(eid) + "/document" + (part ? "?part=" + part : ""));
    } catch (e) { fail(e); return; }
    docState = { run: runID, eid, part: d.part, parts: d.parts, spanPart: d.span_part };
    $("doc-h").textContent = "Filing: " + [d.ticker, d.form, d.fiscal_year ? "FY" + d.fiscal_year : ""].filter(Boolean).join(" ");
    const rows = [["Issuer", d.company ? d.company + " (" + d.ticker + ")" : d.ticker], ["Form", d.form],
      ["Period", "fiscal year " + d.fiscal_year + ", ended " + d.period_end], ["Filed", d.filed || "\u2014"],
      ["Cited span", "bytes " + d.start + "\u2013" + d.end + " of " + d.document_length + ", in part " + d.span_part]];
    if (d.pages) rows.push(["Pages", d.pages + " (this part starts on page " + d.first_page + ")"]);
    for (const [k, v] of rows) meta.append(el("dt", k), el("dd", v));
    $("doc-part").textContent = "Part " + d.part + " of " + d.parts + " (bytes " + d.text_start + "\u2013" + d.text_end + ")";
    $("doc-prev").disabled = d.part <= 1;
    $("doc-next").disabled = d.part >= d.parts;
    // The span, or the part of it this part of the filing holds, is
    // highlighted; the text is text, never markup.
    const from = Math.max(d.start, d.text_start) - d.text_start, to = Math.min(d.end, d.text_end) - d.text_start;
    if (to > from && from >= 0) {
      const mark = el("mark", d.text.slice(from, to), { id: "doc-span" });
      pre.append(document.createTextNode(d.text.slice(0, from)), mark, document.createTextNode(d.text.slice(to)));
      mark.scrollIntoView({ block: "center" });
    } else {
      pre.append(document.createTextNode(d.text));
      pre.scrollTop = 0;
    }
    pre.focus({ preventScroll: to > from });
  }

  $("doc-prev").addEventListener("click", () => { if (docState && docState.part > 1) location.hash = docHash(docState.run, docState.eid, docState.part - 1); });
  $("doc-next").addEventListener("click", () => { if (docState && docState.part < docState.parts) location.hash = docHash(docState.run, docState.eid, docState.part + 1); });
  $("doc-tospan").addEventListener("click", () => {
    if (!docState) return;
    if (docState.part === docState.spanPart && $("doc-span")) { $("doc-span").scrollIntoView({ block: "center" }); return; }
    location.hash = docHash(docState.run, docState.eid, 0);
  });

  // ---- batch --------------------------------------------------------------

  const maxBatchBytes = 1 << 20;

  function openBatch(id) {
    show("batch-view");
    $("batch-local").hidden = !localMode;
    for (const x of ["batch-file", "batch-text", "batch-submit"]) $(x).disabled = localMode;
    clear($("batch-errors"));
    $("batch-progress").hidden = true;
    if (id && !localMode) followBatch(id);
  }

  // checkLines finds lines that are not JSON objects with a question, as
  // the server would refuse them, before anything is sent.
  function checkLines(text) {
    const bad = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      let v;
      try { v = JSON.parse(line); } catch (_) { bad.push({ line: i + 1, error: "not valid JSON" }); return; }
      if (!v || typeof v !== "object" || Array.isArray(v)) bad.push({ line: i + 1, error: "not a JSON object" });
      else if (typeof v.question !== "string" || !v.question.trim()) bad.push({ line: i + 1, error: "no question" });
    });
    return bad;
  }

  function showLineErrors(lines) {
    const ul = $("batch-errors"); clear(ul);
    for (const l of lines) ul.append(el("li", "Line " + l.line + ": " + l.error));
  }

  $("batch-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (localMode) return;
    clear($("batch-errors"));
    const f = $("batch-file").files[0];
    let text, source = "pasted.jsonl";
    if (f) {
      if (f.size > maxBatchBytes) { notify("The file is larger than 1024 KiB: split it into smaller batches."); return; }
      text = await f.text();
      source = f.name;
    } else text = $("batch-text").value;
    if (!text.trim()) { notify("Choose a JSONL file or paste its lines."); $("batch-file").focus(); return; }
    const bad = checkLines(text);
    if (bad.length) {
      showLineErrors(bad);
      notify((bad.length === 1 ? "Line " + bad[0].line + " is " + bad[0].error.replace(/^no /, "without a ") : bad.length + " lines are not valid, the first line " + bad[0].line + " (" + bad[0].error + ")") + ": nothing was sent. Fix the file and submit it again.");
      return;
    }
    $("batch-submit").disabled = true;
    try {
      const headers = authHeaders();
      headers["Content-Type"] = "application/x-ndjson";
      let resp;
      try {
        resp = await fetch("/v1/batches?source=" + encodeURIComponent(source.slice(0, 200)), { method: "POST", headers, body: text, cache: "no-store" });
      } catch (_) { throw new APIError(0, "The server cannot be reached. Check that research serve is running, then try again."); }
      if (!resp.ok) {
        let body = null;
        try { body = await resp.clone().json(); } catch (_) { /* not JSON */ }
        const err = await readError(resp);
        if (resp.status === 401) { onUnauthorized(err); return; }
        if (body && body.lines) showLineErrors(body.lines);
        throw err;
      }
      const b = await resp.json();
      notify("");
      $("batch-file").value = "";
      location.hash = "#/batch/" + b.batch_id;
    } catch (e) { fail(e); } finally { $("batch-submit").disabled = false; }
  });

  // followBatch shows a batch's progress, polling until every run is done.
  function followBatch(id) {
    let stopped = false, timer = 0;
    stopStream = () => { stopped = true; clearTimeout(timer); };
    $("batch-progress").hidden = false;
    $("batch-id").textContent = id;
    const tick = async () => {
      let b;
      try { b = await api("GET", "/v1/batches/" + encodeURIComponent(id)); } catch (e) {
        if (!stopped) fail(e);
        return;
      }
      if (stopped) return;
      renderBatch(b);
      if (b.done < b.runs) timer = setTimeout(tick, 1500);
    };
    tick();
  }

  function renderBatch(b) {
    const box = $("batch-meter"); clear(box);
    meter(box, "runs done", b.done, b.runs);
    box.lastChild.classList.remove("high"); // done is good news, not a budget running out
    const st = Object.entries(b.statuses || {}).map(([k, v]) => v + " " + k).join(", ");
    $("batch-summary").textContent = b.done + " of " + b.runs + " runs done" + (st ? " (" + st + ")" : "") +
      "; " + b.lines + " lines from " + b.source + (b.spend_usd ? "; spent " + b.spend_usd + " USD" : "") + ".";
    const tb = $("batch-table").tBodies[0]; clear(tb);
    for (const it of b.items || []) {
      const tr = el("tr", null, { "data-status": it.status });
      const q = el("td", null, { class: "q" });
      q.append(el("a", it.question || it.run_id, { href: "#/run/" + it.run_id }));
      const s = el("td"); s.append(el("span", it.status, { class: "badge " + String(it.status).replace(/[^a-z_]/g, "") }));
      tr.append(el("td", it.line), q, s, el("td", it.spend_usd || "\u2014"));
      tb.append(tr);
    }
  }

  // ---- lists --------------------------------------------------------------

  async function loadRuns() {
    const tb = $("runs-table").tBodies[0]; clear(tb);
    let r;
    try { r = await api("GET", "/v1/runs"); } catch (e) { fail(e); return; }
    if (!r.runs.length) { notify("No runs yet: ask a question.", true); return; }
    for (const x of r.runs) {
      const tr = el("tr");
      const q = el("td", null, { class: "q" });
      q.append(el("a", x.question, { href: "#/run/" + x.run_id }));
      const took = x.finished ? ((Date.parse(x.finished) - Date.parse(x.created)) / 1000).toFixed(1) + " s" : "\u2014";
      const st = el("td"); st.append(el("span", x.status, { class: "badge " + x.status.replace(/[^a-z_]/g, "") }));
      tr.append(el("td", new Date(x.created).toLocaleString()), st, q, el("td", x.spend_usd), el("td", took));
      tb.append(tr);
    }
  }

  async function loadCorpus() {
    const tb = $("corpus-table").tBodies[0]; clear(tb);
    let r;
    try { r = await api("GET", "/v1/corpus"); } catch (e) { fail(e); return; }
    const issuers = new Set(r.documents.map((d) => d.ticker));
    $("corpus-summary").textContent = r.documents.length + " filings of " + issuers.size + " issuers.";
    for (const d of r.documents) {
      const tr = el("tr");
      tr.append(el("td", d.ticker), el("td", d.company), el("td", d.form), el("td", d.fiscal_year), el("td", d.period_end), el("td", d.filed || "\u2014"));
      tb.append(tr);
    }
  }

  // A fault of this page's own shows as a sentence rather than nothing.
  window.addEventListener("unhandledrejection", (ev) => notify("The page failed: " + (ev.reason && ev.reason.message ? ev.reason.message : String(ev.reason)) + ". Reload to try again."));
  window.addEventListener("error", (ev) => notify("The page failed: " + ev.message + ". Reload to try again."));

  // ---- start --------------------------------------------------------------

  (async function start() {
    // Does this server take keys? A local one (research serve without
    // --db) says it does not: every request is its one tenant's, and no
    // sign-in is shown.
    let auth = "";
    try {
      const resp = await fetch("/v1/config", { cache: "no-store" });
      if (resp.ok) auth = (await resp.json()).auth || "";
    } catch (_) { /* the probe below says the server cannot be reached */ }
    if (auth === "none") {
      needKey = false;
      localMode = true;
      sessionStorage.removeItem(KEY);
      $("signout").hidden = true;
      $("local-note").hidden = false;
      route();
      return;
    }
    // Otherwise, does the key this tab holds work? A server that answers
    // without one needs none.
    try {
      const resp = await fetch("/v1/corpus", { headers: authHeaders(), cache: "no-store" });
      if (resp.status === 401) {
        needKey = true;
        const hadKey = !!sessionStorage.getItem(KEY);
        sessionStorage.removeItem(KEY);
        show("signin-view");
        if (hadKey) notify((await readError(resp)).message);
        $("key").focus();
        return;
      }
      needKey = !!sessionStorage.getItem(KEY);
      $("signout").hidden = !needKey;
    } catch (_) {
      notify("The server cannot be reached. Check that research serve is running, then reload.");
    }
    route();
  })();
})();
