// Partita web console. It reads the server through /admin (JSON) and
// /metrics (Prometheus text) only, and builds the page with DOM calls:
// partition keys and statements are user data, never parsed as HTML.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const TOKEN_KEY = "partita-admin-token";
const LIVE_POINTS = 60;

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fmtBytes(n) {
  if (n < 0) return "unknown";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

function fmtNum(n) { return Number(n).toLocaleString("en-US"); }

function fmtTime(ms) { return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z"); }

// admin fetches an /admin answer, with the token when one was given.
async function admin(path, method) {
  const headers = {};
  if (token()) headers["Authorization"] = "Bearer " + token();
  const resp = await fetch(path, { method: method || "GET", headers, cache: "no-store" });
  const body = await resp.text();
  if (!resp.ok) throw new Error(resp.status + " " + body.trim());
  return JSON.parse(body);
}

function notice(msg) {
  const n = document.getElementById("notice");
  n.hidden = !msg;
  n.textContent = msg || "";
}

function fill(id, ...nodes) {
  const body = document.getElementById(id);
  body.replaceChildren(...nodes);
  body.dataset.loaded = "true";
}

function table(headers, rows) {
  const t = el("table", {}, el("tr", {}, ...headers.map(h => el("th", {}, h))));
  for (const r of rows) t.append(r);
  return t;
}

function num(v) { return el("td", { class: "num" }, fmtNum(v)); }

// opButtons offers split operations on a partition, only with a token.
function opButtons(p, ops) {
  if (!token()) return null;
  const span = el("span", { class: "ops" });
  for (const op of ops) {
    const b = el("button", { class: "op", type: "button", "data-op": op, "data-key": p.PartitionKey }, op);
    b.addEventListener("click", () => runOp(op, p));
    span.append(b);
  }
  return span;
}

async function runOp(op, p) {
  const q = new URLSearchParams({ op, keyspace: p.Keyspace, table: p.Table, key: p.PartitionKey });
  try {
    await admin("/admin/split?" + q, "POST");
    notice(op + " of " + p.Keyspace + "." + p.Table + " (" + p.PartitionKey + ") started");
  } catch (e) {
    notice(op + " failed: " + e.message);
  }
  setTimeout(refresh, 500);
}

// histogramChart draws a table's partition-size percentiles as bars on a
// log scale.
function histogramChart(rows) {
  const svg = svgEl("svg", { viewBox: "0 0 380 140", class: "histogram" });
  const shown = rows.filter(r => r.Percentile !== "Min");
  const max = Math.max(...shown.map(r => r.Bytes), 1);
  const lmax = Math.log10(max + 1);
  const w = 360 / Math.max(shown.length, 1);
  shown.forEach((r, i) => {
    const h = lmax > 0 ? 85 * Math.log10(r.Bytes + 1) / lmax : 0;
    const x = 10 + i * w;
    svg.append(svgEl("rect", { class: "bar", x: x + 4, y: 110 - h, width: w - 8, height: h }));
    svg.append(svgEl("text", { x: x + w / 2, y: 124, "text-anchor": "middle" }, r.Percentile));
    svg.append(svgEl("text", { x: x + w / 2, y: 106 - h, "text-anchor": "middle", class: "label" }, fmtBytes(r.Bytes)));
  });
  svg.append(svgEl("line", { class: "axis", x1: 10, y1: 110, x2: 370, y2: 110 }));
  svg.append(svgEl("text", { x: 10, y: 137 }, "partition size by percentile"));
  return svg;
}

function renderTables(stats) {
  if (!stats.length) return fill("tables-body", el("p", { class: "empty" }, "No user tables."));
  const grid = el("div", { class: "grid" });
  for (const t of stats) {
    const card = el("div", { class: "card table-card", "data-table": t.Keyspace + "." + t.Table },
      el("h3", {}, t.Keyspace + "." + t.Table),
      el("div", { class: "meta" }, fmtNum(t.Partitions) + " partitions, " + fmtNum(t.Rows) + " rows, " +
        fmtBytes(t.Bytes) + ", " + t.SplitPartitions + " split, space used " + fmtBytes(t.SpaceUsed)));
    if (t.Histograms && t.Histograms.length) card.append(histogramChart(t.Histograms));
    else card.append(el("p", { class: "empty" }, "No partitions tracked since the node started."));
    grid.append(card);
  }
  fill("tables-body", grid);
}

function renderPartitions(parts) {
  if (!parts.length) return fill("partitions-body", el("p", { class: "empty" }, "No partitions tracked yet."));
  const rows = parts.slice(0, 12).map(p => el("tr", { class: "partition", "data-key": p.PartitionKey },
    el("td", {}, p.Keyspace + "." + p.Table), el("td", {}, el("code", {}, p.PartitionKey)),
    el("td", { class: "num" }, fmtBytes(p.Size)), num(p.Rows), num(p.RowsWritten), num(p.Reads),
    el("td", {}, p.Split), el("td", {}, opButtons(p, p.Split === "no" ? ["split"] : ["merge", "revert"]))));
  fill("partitions-body", table(["table", "partition key", "size", "rows", "rows written", "reads", "split", ""], rows));
}

// childrenChart draws a split partition's children side by side over its
// clustering range, each labelled with its shard and bounds.
function childrenChart(s) {
  const n = Math.max(s.Children.length, 1);
  const svg = svgEl("svg", { viewBox: "0 0 1200 86", class: "children", "data-children": s.Children.length });
  const w = 1180 / n;
  s.Children.forEach((c, i) => {
    const m = /^shard (\d+): (.*)$/.exec(c);
    const g = svgEl("g", { class: "child-piece" });
    g.append(svgEl("title", {}, c));
    g.append(svgEl("rect", { class: "child" + (s.State === "active" ? "" : " moving"), x: 10 + i * w, y: 10, width: w - 2, height: 40 }));
    g.append(svgEl("text", { x: 10 + i * w + w / 2, y: 34, "text-anchor": "middle", class: "label" }, m ? "shard " + m[1] : "child " + i));
    if (n <= 16) g.append(svgEl("text", { x: 10 + i * w + 2, y: 64 }, (m ? m[2] : c).slice(0, Math.max(6, Math.floor(w / 6)))));
    svg.append(g);
  });
  svg.append(svgEl("text", { x: 10, y: 82 }, s.Strategy === "hash" ? "hash segments" : "clustering range, low to high"));
  return svg;
}

function renderSplits(splits) {
  if (!splits.length) return fill("splits-body", el("p", { class: "empty" }, "No split partitions."));
  const nodes = splits.map(s => {
    const size = s.Rows >= 0 ? fmtNum(s.Rows) + " rows, " + fmtBytes(s.Bytes) : "not measured yet";
    let progress = "";
    if (s.State !== "active") progress = ", " + fmtNum(s.RowsMoved) + " rows moved, cursor " + s.Cursor;
    return el("div", { class: "card split", "data-key": s.PartitionKey },
      el("h3", {}, s.Keyspace + "." + s.Table + " (" + s.PartitionKey + ")"),
      el("div", { class: "meta" }, el("span", { class: "children-count" }, s.Children.length + " children"),
        ", " + s.State + ", epoch " + s.Epoch + ", " + s.Strategy + ", " + size + progress + (s.Reason ? ", " + s.Reason : "")),
      childrenChart(s), opButtons(s, ["merge", "revert"]));
  });
  fill("splits-body", ...nodes);
}

const EVENT_COLORS = { start: "#2f6fde", finish: "#2e8b57", revert: "#c77700", reverted: "#c0392b" };

// renderHistory draws split events on a time axis, then lists them.
function renderHistory(events) {
  if (!events.length) return fill("history-body", el("p", { class: "empty" }, "No splits, merges or reverts yet."));
  const t0 = events[0].At, t1 = Math.max(events[events.length - 1].At, t0 + 1000);
  const svg = svgEl("svg", { viewBox: "0 0 1200 110", class: "timeline", "data-events": events.length });
  const x = t => 20 + 1140 * (t - t0) / (t1 - t0);
  svg.append(svgEl("line", { class: "axis", x1: 20, y1: 50, x2: 1180, y2: 50 }));
  svg.append(svgEl("text", { x: 20, y: 104 }, fmtTime(t0)));
  svg.append(svgEl("text", { x: 1180, y: 104, "text-anchor": "end" }, fmtTime(t1)));
  events.forEach((e, i) => {
    const g = svgEl("g", { class: "event" });
    const label = e.Event + " " + (e.Purpose || "") + " " + e.PartitionKey;
    g.append(svgEl("title", {}, fmtTime(e.At) + " " + e.Keyspace + "." + e.Table + " " + label));
    g.append(svgEl("circle", { cx: x(e.At), cy: 50, r: 6, fill: EVENT_COLORS[e.Event] || "#667085" }));
    g.append(svgEl("text", { x: x(e.At), y: i % 2 ? 78 : 30, "text-anchor": i === 0 ? "start" : "middle", class: "label" }, e.Event + " " + (e.Purpose || "")));
    svg.append(g);
  });
  const rows = events.slice().reverse().slice(0, 30).map(e => el("tr", {},
    el("td", {}, fmtTime(e.At)), el("td", {}, e.Keyspace + "." + e.Table), el("td", {}, el("code", {}, e.PartitionKey)),
    el("td", {}, e.Event), el("td", {}, e.Purpose), el("td", {}, e.Strategy), num(e.Children), num(e.RowsMoved),
    el("td", {}, e.Who)));
  fill("history-body", svg, table(["at", "table", "partition key", "event", "purpose", "strategy", "children", "rows moved", "by"], rows));
}

function renderStatements(st) {
  if (!st.length) return fill("statements-body", el("p", { class: "empty" }, "No statements run yet."));
  const us = v => el("td", { class: "num" }, (v / 1000).toFixed(2));
  const rows = st.slice(0, 25).map(s => el("tr", { class: "statement" },
    el("td", {}, el("code", {}, s.Statement)), el("td", {}, s.Keyspace), num(s.Count), num(s.Errors),
    us(s.P50Micros), us(s.P99Micros), num(s.RowsRead), num(s.RowsReturned), num(s.Filtered)));
  fill("statements-body", table(["statement", "keyspace", "runs", "errors", "p50 ms", "p99 ms", "rows read", "rows returned", "filtered"], rows));
}

function renderAdvisor(rep) {
  const fs = rep.findings || [];
  if (!fs.length) return fill("advisor-body", el("p", { class: "empty" }, "No findings: the data model looks healthy."));
  const nodes = fs.map(f => el("div", { class: "card finding", "data-check": f.check },
    el("h3", { class: "finding-title" }, el("span", { class: "sev " + f.severity }, f.severity.toUpperCase()), " ",
      f.keyspace + (f.table ? "." + f.table : "") + ": " + f.check),
    el("p", {}, f.problem),
    f.worst_partitions ? el("div", { class: "meta" }, "worst: " + f.worst_partitions.join("; ")) : null,
    el("p", {}, el("strong", {}, "Fix: "), f.fix),
    f.fix_cql ? el("pre", {}, f.fix_cql) : null,
    f.effect ? el("div", { class: "meta" }, f.effect) : null));
  fill("advisor-body", el("div", { class: "grid" }, ...nodes));
}

const SECTIONS = [
  ["/admin/tablestats", renderTables],
  ["/admin/partitions", renderPartitions],
  ["/admin/splits", renderSplits],
  ["/admin/split_history", renderHistory],
  ["/admin/statements", renderStatements],
  ["/admin/advise", renderAdvisor],
];

let refreshing = false;

async function refresh() {
  if (refreshing) return;
  refreshing = true;
  let refused = "";
  await Promise.all(SECTIONS.map(async ([path, render]) => {
    try {
      render((await admin(path)) || []);
    } catch (e) {
      if (/^40[13] /.test(e.message)) refused = e.message;
      else notice(path + ": " + e.message);
    }
  }));
  if (refused) {
    notice("/admin refused the console (" + refused + "). Enter the admin token to see tables, partitions and splits.");
    for (const [path] of SECTIONS) {
      const id = path.replace("/admin/", "").replace("tablestats", "tables").replace("split_history", "history").replace("advise", "advisor") + "-body";
      fill(id, el("p", { class: "empty" }, "Needs the admin token."));
    }
  }
  refreshing = false;
}

// Live charts: /metrics every 2 s; rates and latency quantiles come from
// the difference between two scrapes.
const live = { prev: null, points: [] };

function parseMetrics(text) {
  let requests = 0;
  const buckets = new Map();
  for (const line of text.split("\n")) {
    if (line.startsWith("partita_cql_requests_total")) {
      requests += Number(line.slice(line.lastIndexOf(" ") + 1));
    } else if (line.startsWith("partita_cql_request_duration_seconds_bucket")) {
      const le = /le="([^"]+)"/.exec(line);
      if (!le) continue;
      const bound = le[1] === "+Inf" ? Infinity : Number(le[1]);
      buckets.set(bound, (buckets.get(bound) || 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
    }
  }
  return { at: Date.now(), requests, buckets: [...buckets.entries()].sort((a, b) => a[0] - b[0]) };
}

// quantile interpolates as Prometheus' histogram_quantile does, over the
// cumulative bucket counts of one interval.
function quantile(q, buckets) {
  const total = buckets.length ? buckets[buckets.length - 1][1] : 0;
  if (total <= 0) return 0;
  const rank = q * total;
  let prevBound = 0, prevCount = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (bound === Infinity) return prevBound;
      return prevBound + (bound - prevBound) * (rank - prevCount) / Math.max(count - prevCount, 1e-9);
    }
    prevBound = bound; prevCount = count;
  }
  return prevBound;
}

function lineChart(id, series, unit) {
  const svg = document.getElementById(id);
  const all = series.flatMap(s => s.values);
  const max = Math.max(...all, 1e-9);
  const n = live.points.length;
  // The newest point is at the right edge.
  const x = i => 40 + 550 * (LIVE_POINTS - n + i) / (LIVE_POINTS - 1);
  const y = v => 180 - 160 * v / max;
  const nodes = [svgEl("line", { class: "axis", x1: 40, y1: 180, x2: 590, y2: 180 }),
    svgEl("line", { class: "axis", x1: 40, y1: 20, x2: 40, y2: 180 }),
    svgEl("text", { x: 36, y: 24, "text-anchor": "end" }, max.toPrecision(3)),
    svgEl("text", { x: 36, y: 180, "text-anchor": "end" }, "0"),
    svgEl("text", { x: 590, y: 195, "text-anchor": "end" }, "last " + (LIVE_POINTS * 2) + " s, " + unit)];
  for (const s of series) {
    nodes.push(svgEl("polyline", { class: "series " + s.cls, points: s.values.map((v, i) => x(i) + "," + y(v)).join(" ") }));
    s.values.forEach((v, i) => nodes.push(svgEl("circle", { class: "pt " + s.cls, cx: x(i), cy: y(v), r: 2.5 })));
  }
  svg.replaceChildren(...nodes);
  svg.dataset.points = String(n);
}

async function pollMetrics() {
  try {
    const resp = await fetch("/metrics", { cache: "no-store" });
    const cur = parseMetrics(await resp.text());
    const prev = live.prev;
    live.prev = cur;
    if (!prev) return;
    const dt = (cur.at - prev.at) / 1000;
    const interval = cur.buckets.map(([b, c]) => [b, c - ((prev.buckets.find(p => p[0] === b) || [b, 0])[1])]);
    live.points.push({ rate: Math.max(0, (cur.requests - prev.requests) / dt),
      p50: quantile(0.5, interval) * 1000, p99: quantile(0.99, interval) * 1000 });
    if (live.points.length > LIVE_POINTS) live.points.shift();
    const last = live.points[live.points.length - 1];
    document.getElementById("rate-now").textContent = "now " + last.rate.toFixed(1) + "/s";
    document.getElementById("latency-now").textContent = "now p50 " + last.p50.toFixed(2) + " ms, p99 " + last.p99.toFixed(2) + " ms";
    lineChart("chart-rate", [{ cls: "rate", values: live.points.map(p => p.rate) }], "requests/s");
    lineChart("chart-latency", [{ cls: "p50", values: live.points.map(p => p.p50) }, { cls: "p99", values: live.points.map(p => p.p99) }], "ms");
  } catch (e) {
    notice("/metrics: " + e.message);
  }
}

function showMode() {
  document.getElementById("mode").textContent = token() ? "admin: split, merge and revert enabled" : "read-only";
  document.body.dataset.mode = token() ? "admin" : "read-only";
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("token-form").addEventListener("submit", ev => {
    ev.preventDefault();
    const v = document.getElementById("token").value.trim();
    if (v) sessionStorage.setItem(TOKEN_KEY, v);
    document.getElementById("token").value = "";
    notice("");
    showMode();
    refresh();
  });
  document.getElementById("token-forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    showMode();
    refresh();
  });
  showMode();
  refresh();
  setInterval(refresh, 10000);
  pollMetrics();
  setInterval(pollMetrics, 2000);
});
