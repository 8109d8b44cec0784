// @ts-check
/* Why a verdict, or a round, came out as it did, in one sentence a reader can check against the debate
   ("both said REFUTES, but answer relevance 0.62 was under 0.8"). Pure functions of a verdict's fields and
   the score thresholds, so they are tested without a page (tests/server/page/test_page_scripts.py); the formula a
   method writes (DPD's weighted totals, a vote's tally) stays available, folded, under the sentence. */

import { verdictReason } from "./reason.js";

/** @typedef {{agent: string, label: string | null, scores?: Record<string, number | null>, statement?: boolean}} Answer */

/** @param {number} n @param {string} word @param {string} [plural] */
export const plural = (n, word, plural) => n + " " + (n === 1 ? word : plural || word + "s");

/** @param {string} name a score's key ("answer_relevance") */
const scoreName = name => name.replace(/_/g, " ");

/** "rag and search", "a, b and c". @param {string[]} items */
export function listText(items) {
  return items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

/** The scores of these answers that fell short of their thresholds, as phrases ("rag's faithfulness 0.40 was
 * under 0.7"); a score that could not be computed counts as short.
 * @param {Answer[]} answers @param {Record<string, number>} thresholds @returns {string[]} */
export function shortfalls(answers, thresholds) {
  /** @type {string[]} */
  const out = [];
  const many = answers.length > 1;
  answers.forEach(a => Object.entries(a.scores || {}).forEach(([name, value]) => {
    const limit = thresholds[name];
    if (limit === undefined || limit === null) return;
    const who = many ? a.agent + "'s " : "";
    if (value === null || value === undefined) out.push(who + scoreName(name) + " could not be computed");
    else if (value < limit) out.push(who + scoreName(name) + " " + Number(value).toFixed(2) + " was under " + limit);
  }));
  return out;
}

/** What the answers of one round said: "both said REFUTES", "all 3 said SUPPORTS", "rag said SUPPORTS,
 * search REFUTES". @param {Answer[]} answers */
export function saidText(answers) {
  const labels = answers.map(a => a.label || "no label");
  const same = labels.every(l => l === labels[0]);
  if (answers.length === 1) return answers[0].agent + " said " + labels[0];
  if (same) return (answers.length === 2 ? "both" : "all " + answers.length) + " said " + labels[0];
  return answers.map((a, i) => a.agent + (i === 0 ? " said " : " ") + labels[i]).join(", ");
}

/**
 * One round's outcome in a sentence, for the strip of rounds. A lone answer is not a "consensus" of
 * anything: it is said as it is.
 * @param {{round: string, consensus: boolean, answers: Answer[], thresholds: Record<string, number>}} r
 *   `round`: the round's name ("Round 2 of 3")
 */
export function roundSentence(r) {
  const answers = r.answers.filter(a => !a.statement);
  if (!answers.length) return r.round + (r.consensus ? ": agreed" : ": no agreement");
  if (answers.length === 1) return r.round + ": " + saidText(answers);
  if (r.consensus) return r.round + ": " + saidText(answers) + ", agreed";
  const labels = new Set(answers.map(a => a.label));
  if (labels.size === 1 && !labels.has(null)) {
    // Agreeing answers with no scores to fall short of: the method does not seek consensus (a vote).
    if (!answers.some(a => Object.keys(a.scores || {}).length)) return r.round + ": " + saidText(answers);
    const short = shortfalls(answers, r.thresholds);
    return r.round + ": " + saidText(answers) + ", but " + (short.length ? listText(short) :
      "their scores did not hold them to it") + ", so no consensus";
  }
  return r.round + ": " + saidText(answers) + ", no consensus";
}

/* The names under which a step is the agent's answer, not a tool it called: ReAct's closing action is
   "finish", MERMAID's executor records its answer as a step named "answer" (some models write "final_answer"). */
const ANSWER_STEPS = new Set(["finish", "answer", "final_answer"]);

/**
 * How many of an agent's steps called a tool, as its usage counts searches: not its answer, not a step with no
 * valid action, not an action it was stopped from repeating (nothing was run: "the same action as step 1").
 * @param {Array<{tool?: string, observation?: string}>} steps @returns {number}
 */
export function toolCalls(steps) {
  return steps.filter(st => st.tool && !ANSWER_STEPS.has(String(st.tool).toLowerCase()) &&
    !/^the same action as step \d+/.test(String(st.observation || ""))).length;
}

/** @param {any} turn @returns {Answer} */
const answerOf = turn => ({ agent: turn.agent, label: turn.label ?? null, scores: turn.scores || {} });

/**
 * The verdict's reason in a sentence; null when its method's own wording says it all ("a single answer").
 * @param {any} v a verdict @param {Record<string, number>} thresholds
 * @param {(role: string) => boolean} [statement] whether a role's turns are statements without a label
 * @returns {string | null}
 */
export function verdictSentence(v, thresholds, statement) {
  const rounds = v.rounds || [];
  const last = rounds.length ? rounds[rounds.length - 1] : null;
  /** @type {Answer[]} */
  const answers = last ? (last.turns || []).filter((/** @type {any} */ t) => !(statement && statement(t.role)))
    .map(answerOf) : [];
  const label = v.label || "no label";
  switch (v.decided_by) {
    case "consensus":
      return "In " + (last ? "round " + last.round : "the last round") + " " + saidText(answers) +
        (answers.some(a => Object.keys(a.scores || {}).length) ? " and every score passed its threshold." : ".");
    case "judge": {
      const agreed = answers.length > 1 && new Set(answers.map(a => a.label)).size === 1 && answers[0].label;
      const short = shortfalls(answers, thresholds);
      const scored = answers.some(a => Object.keys(a.scores || {}).length);
      // Without scores agreement is not what ends such a debate (MAD): its moderator names a winner, or not.
      const moderated = rounds.some((/** @type {any} */ r) => (r.judges || []).length);
      const unsettled = scored ? "their scores did not hold them to it" : moderated ?
        "no round's moderator named a winner" : "the method leaves the decision to its judge";
      const why = agreed ? saidText(answers) + " in the last round, but " + (short.length ? listText(short) :
        unsettled) : "the agents did not agree within " + plural(rounds.length, "round") +
        (answers.length ? " (last round: " + saidText(answers) + ")" : "");
      return why.charAt(0).toUpperCase() + why.slice(1) + ", so the judge decided: " + label + ".";
    }
    case "vote": {
      /** @type {Record<string, number>} */
      const tally = {};
      answers.forEach(a => { const k = a.label || "no label"; tally[k] = (tally[k] || 0) + 1; });
      const others = Object.entries(tally).filter(([k]) => k !== label).sort((a, b) => b[1] - a[1])
        .map(([k, n]) => n + " " + k);
      return (tally[label] || 0) + " of " + plural(answers.length, "voter") + " said " + label +
        (others.length ? " (" + others.join(", ") + ")" : "") + ": the most frequent label wins.";
    }
    case "panel":
    case "panel-tie": {
      const judges = v.judges || [];
      /** @type {Record<string, number>} */
      const votes = {};
      judges.forEach((/** @type {any} */ j) => { const k = j.vote || "no readable vote"; votes[k] = (votes[k] || 0) + 1; });
      const shown = Object.entries(votes).sort((a, b) => b[1] - a[1]).map(([k, n]) => n + " " + k).join(", ");
      const top = Object.entries(votes).sort((a, b) => b[1] - a[1])[0];
      // The method's own lines say how the weighted totals came out ("... -> tie"): the last round's decides.
      const lines = String(v.explanation || "").split("\n").filter(l => /^round \d/.test(l));
      const tied = v.decided_by === "panel-tie" || (lines.length > 0 && /->\s*tie\b/.test(lines[lines.length - 1]));
      const agreement = v.consensus === null || v.consensus === undefined ? "" :
        " (agreement " + Number(v.consensus).toFixed(2) + ")";
      // A vote weighs its confidence: when every one was 0, every total is 0 and nothing but a tie can come out.
      const nothing = judges.length > 0 && judges.every((/** @type {any} */ j) => !Number(j.confidence));
      const end = tied && nothing ? "; every referee's confidence was 0, so every weighted total was 0: a tie" +
        agreement + ", and the claim gets the tie label " + label + "." :
        tied ? "; weighted by confidence that is a tie" + agreement + ", so the claim gets the tie label " +
        label + "." : top && top[0] !== label ? "; weighted by confidence" + agreement + " the votes favour " + label +
        "." : "; weighted by confidence" + agreement + ", " + label + " wins.";
      return "The " + plural(judges.length, "referee") + " of " + (last ? "round " + last.round : "the last round") +
        " voted " + (shown || "nothing readable") + end;
    }
    case "any-false":
    case "all-true":
    case "unverified": { // a verdict decided as a response's is (FacTool): its claims, each checked alone
      const turns = answers.length ? answers : [];
      const count = (/** @type {string} */ l) => turns.filter(a => a.label === l).length;
      const claims = plural(turns.length, "claim");
      const one = turns.length === 1;
      if (v.decided_by === "any-false") return (one ? "Its one claim was" : count("REFUTES") + " of the " + claims +
        " it was split into " + (count("REFUTES") === 1 ? "was" : "were")) + " found false, and one false claim makes the whole false.";
      if (v.decided_by === "all-true") return one ? "Its one claim was supported." : "All " + claims + " it was split into were supported.";
      return "No claim was found false, but " + (turns.length - count("SUPPORTS")) + " of the " + claims +
        " could not be verified.";
    }
    case "single":
    case "executor":
    case "forced": { // one answer is the verdict (cot, single, ReAct, Self-Check without samples, HaluEval, MERMAID)
      const turn = last ? (last.turns || []).find((/** @type {any} */ t) => t.label !== undefined && t.role !== "decomposer") : null;
      if (!turn) return null; // no answer drawn (a verdict without its rounds): the method's wording says it
      const steps = turn ? toolCalls(turn.steps || []) : 0;
      const calls = steps ? plural(steps, "tool call") : "";
      const how = v.decided_by === "forced" ? "The executor used its " + (calls || "steps") + " without answering and " +
        "was then asked for a label: " + label : v.decided_by === "executor" ? "The executor " +
        (steps ? "made " + calls + " and then answered " : "answered ") + label : steps ?
        "The agent made " + calls + " and then finished with " + label :
        "The model answered once, and that answer is the verdict: " + label;
      // When the answer holds no reasoning (a model that writes the label alone), the reason's line below says so
      // ("… answered SUPPORTS without giving a reason."): said once, not here as well.
      const reason = verdictReason(v);
      return how + (reason && reason.sentence ? "; its own reason is quoted below." : reason ? "." :
        ". It gave the label alone, with no reason, so nothing on this page says why it holds.");
    }
    case "threshold": // WeCheck: a similarity score against a threshold, no model's reasoning
      return "No model reasoned here: the " + (v.explanation || "score against its threshold") + " gives " + label + ".";
    case "consistency": // Self-Check with samples: how many sampled passages the claim is inconsistent with
      return "Sampled passages were each asked whether they support the claim: " +
        (v.explanation || "no answer could be read") + ", so " + label + ".";
    case "moderator":
      return "The moderator of " + (last ? "round " + last.round : "the debate") + " preferred an answer: " + label + ".";
    default:
      return null;
  }
}
