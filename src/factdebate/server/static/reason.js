// @ts-check
/* The deciding answer's own reason: one sentence of what the agent, judge or referee whose answer the verdict
   took wrote, the passages it cited and the line of them it rests on. Read from the verdict's fields alone (no
   DOM), so a saved verdict, a results file and a live run read alike, and tested under Node
   (tests/server/page/test_page_reason.py). What an answer read without citing is kept apart ("also read"). */

/** @typedef {{id?: string, title?: string, text?: string, source?: string}} Doc */
/** @typedef {{agent: string, role: string, round: number | null, label: string | null, text: string,
 *   own: Doc[], seen: Doc[]}} Answer  `own`: the answer's numbered evidence; `seen`: all it could quote */
/** @typedef {{agent: string, role: string, round: number | null, label: string | null, sentence: string | null,
 *   quote: {text: string, doc: Doc} | null, cited: Doc[], citing: string[], read: Doc[]}} Reason */

const LABELS = /^(SUPPORTS|REFUTES|NOT ENOUGH INFO)$/i;
// A line's lead-in that names the verdict ("Verdict: SUPPORTS", "Hallucination: No", "Action: finish[...]"):
// the line is dropped when what follows is that short, kept without its lead-in when it goes on to reason.
const LEAD_IN = /^\W*(?:final\s+)?(?:verdict|answer|label|hallucination|action|vote|factual|thought|reasoning|reason|why)\s*[:=]\s*/i;
// JSON fields in which methods' answers carry their reasoning (DPD's referees, MERMAID, FacTool, a schema'd reply).
const REASON_KEYS = ["why", "reasoning", "reason", "thought", "rationale", "explanation", "justification"];
const MOST_CHARS = 300;
const STOP = new Set(("the a an of in on at to is was were be been by for and or as with that this it its from " +
  "which who are not no has had have than then so but into about").split(" "));

/** @param {unknown} text */
const clean = text => String(text || "").replace(/\s+/g, " ").trim();

/** @param {string} text @param {number} [most] */
function clip(text, most = MOST_CHARS) {
  return text.length > most ? text.slice(0, most).replace(/\s+\S*$/, "") + "…" : text;
}

/** Content words, lower case. @param {string} text */
const words = text => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).filter(w => !STOP.has(w) && w.length > 1);

/** The reasoning a JSON reply holds in one of its REASON_KEYS, or null. @param {string} text */
function jsonReason(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const value = JSON.parse(text.slice(start, end + 1));
    if (!value || typeof value !== "object") return null;
    for (const key of REASON_KEYS) if (typeof value[key] === "string" && value[key].trim()) return value[key];
  } catch { /* not JSON: read as prose */ }
  return null;
}

/** A text's sentences. @param {string} text */
const sentences = text => clean(text).split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(\[])/u).map(s => s.trim()).filter(Boolean);

/**
 * One sentence of an answer's own reasoning, or null when it gave none (a bare label, a verdict line).
 * @param {string} reply @returns {string | null}
 */
export function reasonSentence(reply) {
  const text = jsonReason(reply) ?? reply;
  const prose = text.split("\n").map(l => l.replace(LEAD_IN, "").replace(/[*_#]+/g, "").trim())
    .filter(l => l && !LABELS.test(l.replace(/[.!\s]+$/, "")) && l.split(/\s+/).length > 2).join(" ");
  const found = sentences(prose).find(s => (s.match(/[\p{L}]+/gu) || []).length >= 3);
  return found ? clip(found) : null;
}

/** A passage's identity: its id (two passages of one page differ), else where it came from. @param {Doc} d */
export const keyOf = d => d.id || d.source || d.title || d.text || "";

/**
 * Every key a passage is known by: its identity, and its words when they are long enough to name it. The same
 * passage can come twice under two ids (MERMAID recalls from its memory a passage its search then finds again):
 * it is one passage to a reader. @param {Doc} d @returns {string[]}
 */
export function keysOf(d) {
  const text = clean(d.text).toLowerCase();
  return [keyOf(d), text.split(" ").length >= 8 ? "text:" + text : ""].filter(Boolean);
}

/** Passages without repeats, in first-seen order. @param {Doc[]} docs */
export function unique(docs) {
  /** @type {Set<string>} */
  const seen = new Set();
  return docs.filter(d => {
    const keys = keysOf(d);
    if (!keys.length || keys.some(k => seen.has(k))) return false;
    keys.forEach(k => seen.add(k));
    return true;
  });
}

/** Every passage a turn read: its own evidence and its steps' observations. @param {any} turn @returns {Doc[]} */
export function readBy(turn) {
  return [...(turn.evidence || []), ...(turn.steps || []).flatMap((/** @type {any} */ s) => s.evidence || [])];
}

/**
 * The passages an answer cites: by number ("[2]", "Document 2") into its own numbered evidence, by a phrase
 * it quotes from one, by a title not already in the claim, or by a run of six words it shares with one.
 * @param {string} text @param {Doc[]} own @param {Doc[]} seen @param {string} claim
 * @returns {{docs: Doc[], phrases: Map<string, string>}} phrases: a passage's key -> the words quoted from it
 */
export function citedBy(text, own, seen, claim) {
  /** @type {Doc[]} */
  const docs = [];
  /** @type {Map<string, string>} */
  const phrases = new Map();
  for (const m of text.matchAll(/(?:\[(\d{1,2})\]|\b(?:document|doc|passage|source|evidence)\s*#?\[?(\d{1,2})\]?)/gi)) {
    const doc = own[Number(m[1] || m[2]) - 1];
    if (doc) docs.push(doc);
  }
  const flat = (/** @type {string} */ s) => clean(s).toLowerCase();
  for (const m of text.matchAll(/["“]([^"”]{12,300})["”]/g)) {
    const phrase = flat(m[1]);
    const doc = seen.find(d => flat(d.text || "").includes(phrase));
    if (doc) { docs.push(doc); phrases.set(keyOf(doc), clean(m[1])); }
  }
  const lower = flat(text);
  const inClaim = flat(claim);
  seen.forEach(d => {
    const title = flat(d.title || "");
    if (title.length >= 4 && !inClaim.includes(title) && lower.includes(title)) docs.push(d);
  });
  const mine = words(text);
  const grams = new Set(mine.slice(5).map((_, i) => mine.slice(i, i + 6).join(" ")));
  seen.forEach(d => {
    const theirs = words(d.text || "");
    for (let i = 0; i + 6 <= theirs.length; i++) if (grams.has(theirs.slice(i, i + 6).join(" "))) { docs.push(d); break; }
  });
  return { docs: unique(docs), phrases };
}

/**
 * What each of a text's words says about it: a number 3, a name (capitalised after a sentence's first word) 2,
 * another content word 1. A citation mark ("[1]") is no number. @param {string} text @returns {Map<string, number>}
 */
function weighted(text) {
  /** @type {Map<string, number>} */
  const out = new Map();
  sentences(text.replace(/\[\d{1,2}\]/g, " ")).forEach(line => {
    (line.match(/[\p{L}\p{N}]+/gu) || []).forEach((token, i) => {
      const w = token.toLowerCase();
      if (STOP.has(w) || w.length < 2) return;
      const weight = /^\p{N}/u.test(token) ? 3 : i > 0 && /^\p{Lu}/u.test(token) ? 2 : 1;
      out.set(w, Math.max(out.get(w) || 0, weight));
    });
  });
  return out;
}

/**
 * The line of a passage that says what these words say: the one sharing most of their distinguishing words
 * (numbers, names, then other words, each counted once; a word every line holds tells none apart), or null
 * when no line shares any (counted by every word, a repeated "tower" would make the Champ de Mars line the
 * quote for "...was completed in 1889").
 * @param {Doc} doc @param {string} about @returns {string | null}
 */
export function bestLine(doc, about) {
  const wanted = weighted(about);
  const lines = sentences(doc.text || "");
  const held = lines.map(s => new Set(words(s)));
  let best = null;
  let score = 0;
  lines.forEach((line, i) => {
    let n = 0;
    held[i].forEach(w => {
      if (wanted.has(w) && (lines.length === 1 || !held.every(h => h.has(w)))) n += wanted.get(w) || 0;
    });
    if (n > score) { best = line; score = n; }
  });
  return best === null ? null : clip(best, 280);
}

/** @param {any} turn @param {number | null} round @param {Doc[]} seen @returns {Answer} */
const turnAnswer = (turn, round, seen) => {
  // A tool-using agent's reasoning is in its thoughts: the last one is what it decided on.
  const thoughts = (turn.steps || []).map((/** @type {any} */ s) => clean(s.thought)).filter(Boolean);
  const text = reasonSentence(turn.response || "") ? turn.response : thoughts.length ? thoughts[thoughts.length - 1] : turn.response || "";
  return { agent: turn.agent || "", role: turn.role || "", round, label: turn.label ?? null, text: String(text || ""),
    own: turn.evidence || [], seen: unique([...readBy(turn), ...seen]) };
};

/** @param {any} j @param {number | null} round @param {Doc[]} seen @returns {Answer} */
const judgeAnswer = (j, round, seen) => ({ agent: j.agent || "judge", role: j.role || "judge", round,
  label: j.vote ?? null, text: String(j.response || ""), own: [], seen });

/**
 * The answers the verdict took, best first: its final judge; a panel's referees who voted its label, the most
 * confident first; a round's moderator who named it; else the last round's answers that said its label (every
 * answer with a label, when none did). `backers`: the last round's answers a judge's decision agreed with,
 * whose citations stand for a judge that cited none of its own.
 * @param {any} v @returns {{answers: Answer[], backers: Answer[]}}
 */
export function decidingAnswers(v) {
  const rounds = v.rounds || [];
  const last = rounds.length ? rounds[rounds.length - 1] : null;
  const lastRound = rounds.length > 1 && last ? last.round ?? rounds.length : null; // a lone round goes unnamed
  const turns = last ? last.turns || [] : [];
  const labelled = turns.filter((/** @type {any} */ t) => t.label);
  const agreeing = labelled.filter((/** @type {any} */ t) => t.label === v.label);
  const chosen = agreeing.length ? agreeing : labelled.length ? labelled : turns;
  const before = unique(chosen.flatMap(readBy)); // what a judge had before it
  const backers = chosen.map((/** @type {any} */ t) => turnAnswer(t, lastRound, []));
  const judges = v.judges || [];
  const code = String(v.decided_by || "");
  if (code.startsWith("panel")) {
    const votes = judges.filter((/** @type {any} */ j) => code === "panel-tie" || j.vote === v.label)
      .sort((/** @type {any} */ a, /** @type {any} */ b) => (b.confidence ?? 0) - (a.confidence ?? 0));
    const read = unique(turns.flatMap(readBy));
    return { answers: votes.map((/** @type {any} */ j) => judgeAnswer(j, lastRound, read)), backers: [] };
  }
  if (code === "moderator") {
    const moderators = (last?.judges || []).filter((/** @type {any} */ j) => j.vote === v.label);
    if (moderators.length) return { answers: moderators.map((/** @type {any} */ j) => judgeAnswer(j, lastRound, before)), backers };
  }
  if (judges.length && code !== "consensus") return { answers: [judgeAnswer(judges[judges.length - 1], null, before)], backers };
  return { answers: backers, backers: [] };
}

/**
 * The deciding answer's reason and the passage line it rests on; the passages cited (by it, or for a judge
 * that cited none, by the answers it took) and who cited them; those read without being cited. Null for a
 * verdict with no answer at all.
 * @param {any} v @returns {Reason | null}
 */
export function verdictReason(v) {
  const { answers, backers } = decidingAnswers(v);
  if (!answers.length) return null;
  const first = answers.find(a => reasonSentence(a.text)) || answers[0];
  const sentence = reasonSentence(first.text);
  const claim = String(v.claim || "");
  let found = citedBy(first.text, first.own, first.seen, claim);
  /** @type {string[]} */
  let citing = found.docs.length ? [first.agent] : [];
  if (!found.docs.length) {
    backers.forEach(b => {
      const theirs = citedBy(b.text, b.own, b.seen, claim);
      if (!theirs.docs.length) return;
      citing.push(b.agent);
      found = { docs: unique([...found.docs, ...theirs.docs]), phrases: new Map([...theirs.phrases, ...found.phrases]) };
    });
  }
  const doc = found.docs[0];
  const line = doc ? found.phrases.get(keyOf(doc)) || bestLine(doc, (sentence || "") + " " + claim) : null;
  // Quoted once: a line that is the whole passage is left to the list of passages cited, shown right below.
  // Nor quoted under a reason that already says it word for word (it would be printed twice).
  const said = clean(sentence).toLowerCase();
  const quote = doc && line && clean(line) !== clean(doc.text) && !(said && said.includes(clean(line).toLowerCase())) ?
    { text: clip(line, 280), doc } : null;
  const cited = new Set(found.docs.flatMap(keysOf));
  const everyRead = unique([...answers.flatMap(a => a.seen), ...(v.rounds || []).flatMap(
    (/** @type {any} */ r) => (r.turns || []).flatMap(readBy))]);
  return { agent: first.agent, role: first.role, round: first.round, label: first.label ?? v.label ?? null, sentence,
    quote, cited: found.docs, citing, read: everyRead.filter(d => !keysOf(d).some(k => cited.has(k))) };
}

/**
 * The reason in words: "rag (round 2) wrote: “…”", or that the answer gave none.
 * @param {Reason} r @param {string} [who] the answer's name as its view calls it
 */
export function reasonText(r, who) {
  // It starts the sentence: an agent's own name ("rag") with a capital.
  const name = (who || r.agent).replace(/^./, c => c.toUpperCase()) + (r.round ? " (round " + r.round + ")" : "");
  if (r.sentence) return name + " wrote: “" + r.sentence.replace(/^["“]|["”]$/g, "") + "”";
  return name + " answered " + (r.label || "with no label") + " without giving a reason.";
}
