// The Curia scanner page. Plain JS, no build step, talks only to the server that served it.
// Every scan gets an answer shown large; scans that could not be sent (the phone lost the
// network) wait in a queue (texts also in localStorage) and are sent again with the same
// scan_id, so the server answers a retry with its first answer instead of counting twice.
// Every text it shows comes from the tablet's catalogue, in this phone's language: the server
// puts them in the page (companion/phone/words.py).
"use strict";

const PAGE = JSON.parse(document.getElementById("words").textContent);
const plural = new Intl.PluralRules(PAGE.lang);

function t(key, values = {}) {
  const text = PAGE.words[key];
  return String(Array.isArray(text) ? text[text.length - 1] : text ?? key)
    .replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

function tn(key, n, values = {}) {
  // gettext's two forms (one, many): the browser's own rule says which one n takes
  const forms = PAGE.words[key];
  const form = plural.select(n) === "one" ? forms[0] : forms[forms.length - 1];
  return form.replace(/\{(\w+)\}/g, (m, name) => (name === "n" ? String(n)
    : name in values ? String(values[name]) : m));
}

function statusWords(status) {
  return status in STATUS ? t(STATUS[status]) : t("phone.page.status.refused");
}
const STATUS = {
  counted: "phone.page.status.counted", duplicate: "phone.page.status.duplicate",
  claimed: "phone.page.status.claimed", not_fate: "phone.page.status.not_fate",
  unreadable: "phone.page.status.unreadable", refused: "phone.page.status.refused",
  offline: "phone.page.status.offline", waiting: "phone.page.status.waiting",
};
const MAX_SIDE = 2000;            // photos are shrunk to this before upload (4 MB limit)
const TEXT_MS = 15000;            // no answer in this time: the request is given up and retried
const PHOTO_MS = 60000;
let allowed = null;               // this phone may count (the narrator allowed it on the tablet)
const $ = (id) => document.getElementById(id);
let pending = [];                 // [{kind: "text"|"photo", scan_id, text?, blob?}]

function newId() {
  const a = new Uint8Array(8);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

function showTotals(reply) {
  if (reply && typeof reply.total === "number") {
    $("total").textContent = String(reply.total);
    $("count").textContent = reply.count == null ? ""
      : reply.of != null ? tn("phone.page.cards_revealed_of", reply.of, { count: reply.count })
      : tn("phone.page.cards_revealed", reply.count);
  }
}

function cardWords(card) {
  // {"knives": 3} -> "3 Knives", in this phone's language
  const [side, n] = Object.entries(card || {})[0] || [];
  return side === "knives" || side === "doves" ? tn(`phone.page.card.${side}`, n) : "";
}

function describe(a) {
  if (a.status === "counted" || a.status === "duplicate" || a.status === "claimed") {
    const card = t("phone.page.card_detail", { card: cardWords(a.card), serial: a.serial });
    return typeof a.total === "number" ? t("phone.page.card_total", { card, total: a.total }) : card;
  }
  return a.error || "";
}

function showAnswer(a) {
  const box = $("answer");
  box.className = "answer " + a.status;
  $("answer-status").textContent = statusWords(a.status);
  $("answer-detail").textContent = describe(a);
}

function addHistory(a) {
  const li = document.createElement("li");
  li.textContent = t("phone.page.history_line", { status: statusWords(a.status), detail: describe(a) });
  li.dataset.status = a.status;
  $("history").prepend(li);
}

function handleReply(reply) {
  for (const a of reply.answers || []) {
    showAnswer(a);
    if (!reply.replayed) addHistory(a);
  }
  showTotals(reply);
}

function savePending() {
  const texts = pending.filter((p) => p.kind === "text");
  try { localStorage.setItem("curia-pending", JSON.stringify(texts)); } catch (e) { /* private mode */ }
  $("pending").textContent = pending.length ? tn("phone.page.pending", pending.length) : "";
}

async function fetchWithin(url, opts, ms) {
  // A tablet that stops answering must not leave the page waiting for ever.
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  try {
    return await fetch(url, { ...opts, credentials: "same-origin", signal: ctl.signal });
  } finally {
    clearTimeout(timer);
  }
}

async function replyOf(res) {
  try { return await res.json(); } catch (e) { return { error: t("phone.page.no_answer") }; }
}

async function send(item) {
  let res;
  if (item.kind === "text") {
    res = await fetchWithin("/scan", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: item.text, scan_id: item.scan_id, typed: !!item.typed }),
    }, TEXT_MS);
  } else {
    res = await fetchWithin("/photo", {
      method: "POST", headers: { "Content-Type": item.blob.type, "X-Scan-Id": item.scan_id },
      body: item.blob,
    }, PHOTO_MS);
  }
  const reply = await replyOf(res);
  if (!res.ok) {
    // busy, or its first copy still being answered: try again later, keep it queued
    if (res.status === 429 || res.status === 503) throw new Error("busy");
    const error = reply.error || t("phone.page.no_answer");
    if (reply.reason === "waiting") { showWaiting(); return { answers: [] }; }
    return { answers: [{ status: "refused", error }] };
  }
  return reply;
}

function showWaiting() {
  allowed = false;
  const box = $("answer");
  box.className = "answer waiting";
  $("answer-status").textContent = t("phone.page.status.waiting");
  $("answer-detail").textContent = t("phone.page.waiting_detail");
}

let flushing = false;
async function flush() {
  if (flushing) return;
  flushing = true;
  try {
    while (pending.length) {
      let reply;
      try {
        reply = await send(pending[0]);
      } catch (e) {
        showAnswer({ status: "offline", error: t("phone.page.offline_detail") });
        break;
      }
      pending.shift();
      savePending();
      handleReply(reply);
    }
  } finally {
    flushing = false;
    savePending();
  }
}

function enqueue(item) {
  pending.push(item);
  savePending();
  $("answer").className = "answer idle";
  $("answer-status").textContent = t("phone.page.checking");
  $("answer-detail").textContent = "";
  return flush();
}

async function shrink(file) {
  // Phones take 12-megapixel photos; 2000 px keeps a card's code readable and the upload small.
  try {
    const bmp = await createImageBitmap(file);
    const f = Math.min(1, MAX_SIDE / Math.max(bmp.width, bmp.height));
    if (f === 1 && ["image/jpeg", "image/png", "image/webp"].includes(file.type)) return file;
    const c = document.createElement("canvas");
    c.width = Math.round(bmp.width * f);
    c.height = Math.round(bmp.height * f);
    c.getContext("2d").drawImage(bmp, 0, 0, c.width, c.height);
    return await new Promise((ok) => c.toBlob(ok, "image/jpeg", 0.92));
  } catch (e) {
    return file;  // the server says what is wrong with it
  }
}

$("photo").addEventListener("change", async (ev) => {
  const file = ev.target.files && ev.target.files[0];
  ev.target.value = "";
  if (!file) return;
  const blob = await shrink(file);
  await enqueue({ kind: "photo", scan_id: newId(), blob });
});

$("typed").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("code").value.trim();
  if (!text) return;
  $("code").value = "";
  enqueue({ kind: "text", scan_id: newId(), text, typed: true });
});

// Live scanning needs the camera, which browsers give only to a secure context (https, or
// this phone itself). The reader is the browser's own BarcodeDetector where it has one that
// reads QR codes (Chrome on Android), otherwise ZXing-C++ compiled to WebAssembly behind the
// same API (the npm package barcode-detector), both served by the tablet.
function loadScript(src) {
  return new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = ok;
    s.onerror = () => fail(new Error("could not load " + src));
    document.head.append(s);
  });
}

async function qrDetector() {
  if ("BarcodeDetector" in window) {
    try {
      if ((await BarcodeDetector.getSupportedFormats()).includes("qr_code")) {
        return new BarcodeDetector({ formats: ["qr_code"] });
      }
    } catch (e) { /* fall back to the tablet's reader */ }
  }
  await loadScript("/vendor/barcode-detector-ponyfill.js");
  const api = window.BarcodeDetectionAPI;
  await api.prepareZXingModule({
    overrides: {
      locateFile: (path, prefix) => path.endsWith(".wasm") ? "/vendor/zxing_reader.wasm" : prefix + path,
    },
    fireImmediately: true,
  });
  return new api.BarcodeDetector({ formats: ["qr_code"] });
}

async function setupLive() {
  const can = window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
  if (!can) {
    $("live-note").textContent = t("phone.page.live_needs_secure");
    return;
  }
  let detector;
  try {
    detector = await qrDetector();
  } catch (e) {
    $("live-note").textContent = t("phone.page.live_failed");
    return;
  }
  const recent = new Map();   // text -> time last sent, so a card held in view is sent once
  $("live").hidden = false;
  $("live").addEventListener("click", async () => {
    const video = $("video");
    try {
      video.srcObject = await navigator.mediaDevices.getUserMedia(
        { video: { facingMode: "environment" }, audio: false });
    } catch (e) {
      $("live-note").textContent = t("phone.page.camera_failed");
      return;
    }
    video.hidden = false;
    await video.play();
    $("live").hidden = true;
    $("live-note").textContent = t("phone.page.hold_card");
    const tick = async () => {
      try {
        for (const code of await detector.detect(video)) {
          const now = Date.now();
          if (now - (recent.get(code.rawValue) || 0) > 5000) {
            recent.set(code.rawValue, now);
            enqueue({ kind: "text", scan_id: newId(), text: code.rawValue });
          }
        }
      } catch (e) { /* a frame that could not be read */ }
      setTimeout(tick, 250);
    };
    tick();
  });
}

// Voting: a phone that joined with its player's own seat code sees the vote in progress (the
// question, the choices, its weight) and sends one ballot. It is told "recorded" and the
// choices go away: the phone never shows a ballot again, not even its own.
let shownVote = null;

function showVote(st) {
  const area = $("vote-area");
  area.hidden = !st.seat;
  if (!st.seat) return;
  $("vote-title").textContent = t("phone.page.vote_title", { player: st.seat });
  const v = st.vote;
  const box = $("vote-options");
  if (!v) {
    shownVote = null;
    box.replaceChildren();
    $("vote-question").textContent = "";
    $("vote-weight").textContent = "";
    $("vote-answer").className = "answer idle";
    $("vote-status").textContent = t("phone.page.no_vote");
    $("vote-detail").textContent = t("phone.page.no_vote_detail");
    return;
  }
  $("vote-question").textContent = v.question;
  $("vote-weight").textContent = v.weight != null ? t("phone.page.weight", { n: v.weight }) : "";
  if (v.voted) {
    box.replaceChildren();
    shownVote = v.vote_id + ":voted";
    $("vote-answer").className = "answer counted";
    $("vote-status").textContent = t("phone.page.recorded");
    $("vote-detail").textContent = t("phone.page.recorded_detail");
    return;
  }
  if (shownVote === v.vote_id) return;   // the buttons are up already
  shownVote = v.vote_id;
  $("vote-answer").className = "answer idle";
  $("vote-status").textContent = t("phone.page.vote_now");
  $("vote-detail").textContent = t("phone.page.vote_now_detail");
  const choices = v.options.map((o) => [o.label, o.option]);
  if (v.abstain) choices.push([t("phone.page.abstain"), null]);
  box.replaceChildren(...choices.map(([label, option]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "choice";
    b.textContent = label;
    b.addEventListener("click", () => castBallot(v.vote_id, option));
    return b;
  }));
}

async function castBallot(voteId, option) {
  $("vote-options").replaceChildren();   // the choice leaves the screen at once
  $("vote-answer").className = "answer idle";
  $("vote-status").textContent = t("phone.page.sending");
  $("vote-detail").textContent = "";
  const ballotId = newId();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const res = await fetchWithin("/ballot", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ vote_id: voteId, option, ballot_id: ballotId }),
      }, TEXT_MS);
      const reply = await replyOf(res);
      if (res.ok && reply.status === "recorded") {
        shownVote = voteId + ":voted";
        $("vote-answer").className = "answer counted";
        $("vote-status").textContent = t("phone.page.recorded");
        $("vote-detail").textContent = t("phone.page.recorded_detail");
        return;
      }
      if (res.ok && reply.retry) continue;
      shownVote = null;   // refused: the choices come back on the next refresh
      $("vote-answer").className = "answer refused";
      $("vote-status").textContent = t("phone.page.not_recorded");
      $("vote-detail").textContent = reply.error || t("phone.page.no_answer");
      return;
    } catch (e) { /* no answer in time: the same ballot_id again, answered once */ }
  }
  shownVote = null;
  $("vote-answer").className = "answer offline";
  $("vote-status").textContent = t("phone.page.not_sent");
  $("vote-detail").textContent = t("phone.page.not_sent_detail");
}

// The table: a seat's phone shows the game as the tablet does, for its own seat (the server
// builds it from the rules' view of this seat, see companion/phone/table.py). A long poll:
// the server answers when the view's version changes, so the page follows the tablet within
// a second; during eyes-closed phases the view does not change, so neither does the page.
let tableVersion = 0;
let tableShown = null;
let clockSkew = 0;            // the tablet's clock minus this phone's, in ms

function sleep(ms) { return new Promise((ok) => setTimeout(ok, ms)); }

function clockText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function showTimers() {
  const timers = (tableShown && !tableShown.eyes_closed && tableShown.timers) || [];
  $("table-timers-box").hidden = !timers.length;
  const now = Date.now() + clockSkew;
  const lines = timers.map((tm) => {
    const text = tm.running ? clockText(tm.ends_at - now / 1000)
      : t("phone.page.paused", { time: clockText(tm.remaining) });
    return `${tm.name} ${text}`;
  });
  const box = $("table-timers");
  if (box.children.length !== lines.length) {
    box.replaceChildren(...lines.map(() => document.createElement("li")));
  }
  lines.forEach((line, i) => { if (box.children[i].textContent !== line) box.children[i].textContent = line; });
}

function showTable(tb) {
  tableShown = tb;
  // which view is up and when it came (read by the tests; the same for every seat and phase)
  document.documentElement.dataset.tableVersion = String(tableVersion);
  document.documentElement.dataset.tableShownAt = String(Date.now());
  $("table-area").hidden = false;
  const now = $("table-now");
  if (!tb || !tb.game) {
    $("table-game").textContent = t("phone.page.table");
    $("table-phase").textContent = "";
    now.className = "answer idle";
    $("table-prompt").textContent = t("phone.page.no_game");
    $("table-asks").textContent = "";
    for (const id of ["table-board", "table-history"]) $(id).replaceChildren();
    for (const id of ["table-result-box", "table-history-box"]) $(id).hidden = true;
    showTimers();   // none: emptied now, so the page does not change on the next tick
    return;
  }
  $("table-game").textContent = tb.game;
  if (tb.eyes_closed) {
    document.body.classList.remove("voting");
    $("table-phase").textContent = "";
    now.className = "answer eyes-closed";
    $("table-prompt").textContent = tb.prompt;
    $("table-asks").textContent = tb.detail;
    for (const id of ["table-board", "table-history"]) $(id).replaceChildren();
    for (const id of ["table-result-box", "table-history-box"]) $(id).hidden = true;
    showTimers();   // none: emptied now, so the page does not change on the next tick
    return;
  }
  $("table-phase").textContent = tb.phase;
  document.body.classList.toggle("voting", !!tb.voting);
  now.className = "answer " + (tb.your_turn || tb.voting ? "your-turn" : "idle");
  $("table-prompt").textContent = tb.prompt;
  // a vote open asks this player for a ballot first, even on their own turn
  $("table-asks").textContent = tb.voting ? t("phone.page.vote_open")
    : tb.your_turn ? `${t("phone.page.your_turn")}: ${tb.asks}` : "";
  $("table-board").replaceChildren(...tb.board.flatMap(([label, value]) => {
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.textContent = value;
    return [dt, dd];
  }));
  $("table-result-box").hidden = !tb.result;
  if (tb.result) {
    $("table-result").textContent = [tb.result.won ? t("phone.page.you_won") : t("phone.page.you_lost"),
      tb.result.summary, t("phone.page.winners", { names: tb.result.winners.join(", ") })]
      .filter(Boolean).join(" · ");
  }
  $("table-history-box").hidden = !tb.history.length;
  $("table-history").replaceChildren(...tb.history.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  showTimers();
}

let tablePolling = false;
async function pollTable() {
  if (tablePolling) return;
  tablePolling = true;
  for (;;) {
    try {
      const res = await fetchWithin("/table?v=" + tableVersion, {}, 30000);
      if (res.status === 403) { $("table-area").hidden = true; tablePolling = false; return; }
      if (!res.ok) { await sleep(1000); continue; }
      const r = await res.json();
      clockSkew = r.now * 1000 - Date.now();
      if (r.version !== tableVersion) {
        const voting = tableShown && tableShown.voting;
        tableVersion = r.version;
        showTable(r.table);
        if (r.table && r.table.voting !== voting) refresh();   // a vote opened or closed
      }
    } catch (e) { await sleep(1000); }
  }
}
setInterval(showTimers, 500);

async function refresh() {
  // Totals change from tablet taps and other phones too; the tablet's journal is the truth.
  try {
    const res = await fetchWithin("/state", {}, TEXT_MS);
    if (!res.ok) {
      if (res.status === 403) location.reload();  // the tablet forgot this phone: its page says so
      return null;
    }
    const st = await res.json();
    showVote(st);
    if (st.seat) pollTable();
    // a seat's phone scans Fate cards only if the narrator allowed it to
    $("curia-area").hidden = !!st.seat && !st.allowed;
    showTotals(st);
    $("who").textContent = t("phone.page.who", { phone: st.phone });
    $("typed").hidden = !st.typing;
    $("typed-off").hidden = !!st.typing;
    if (!st.allowed) showWaiting();
    else if (allowed === false) {
      $("answer").className = "answer idle";
      $("answer-status").textContent = t("phone.page.ready");
      $("answer-detail").textContent = t("phone.page.allowed_detail");
    }
    allowed = !!st.allowed;
    return st;
  } catch (e) { return null; }
}

async function start() {
  try {
    pending = JSON.parse(localStorage.getItem("curia-pending") || "[]")
      .filter((p) => p && p.kind === "text" && typeof p.text === "string");
  } catch (e) { pending = []; }
  const st = await refresh();
  if (st && Array.isArray(st.history)) {
    // a phone that reloads or reconnects gets its earlier answers back from the server
    for (const a of st.history) addHistory(a);
    if (st.history.length && st.allowed) showAnswer(st.history[st.history.length - 1]);
  }
  setupLive();
  flush();
  setInterval(() => { refresh(); flush(); }, 2000);
  window.addEventListener("online", flush);
}

start();
