// @ts-check
/* Links that reopen a check from the service (GET /v1/checks/{id}), not from one browser's Recent checks:
   the service keeps every finished check for the key that asked (for as long as its operator chose) and
   sends its id; the verdict box shows a link, /?check=<id>, or /?check=<id>,<id>,… for a comparison. Opened,
   the page fetches the check(s) and draws them with the method's own view, as Recent checks does. A streamed
   check is kept with its model calls: however it is reopened (a link, Recent checks), they are fetched and
   drawn under their turns as the live stream drew them (`keptCalls`). */
import { errorText, headers } from "./api.js";
import { el } from "./dom.js";

const CHECK_ID = /^[0-9a-f]{32}$/;
// A comparison link names one check per method; more than this is no link the page gave.
const MOST_IDS = 12;

/** The page's address that reopens these checks. @param {string[]} ids */
export function checkUrl(ids) {
  return location.origin + location.pathname + "?check=" + ids.join(",");
}

/** A "Link" to the check(s) and a button that copies it. @param {string[]} ids */
export function linkControl(ids) {
  const wrap = el("span", "check-link");
  const url = checkUrl(ids);
  const link = el("a", "", ids.length > 1 ? "Link to this comparison" : "Link to this check");
  link.href = url;
  link.title = "Opens this check again from the service, in any browser with the same API key";
  const copy = el("button", "secondary copy-link", "Copy link");
  copy.type = "button";
  const said = el("span", "muted copied");
  said.setAttribute("role", "status");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
      said.textContent = "copied";
    } catch (_) { // no clipboard (an insecure origin): the link is there to copy by hand
      said.textContent = "copy the link by hand";
    }
  });
  wrap.append(link, copy, said);
  return wrap;
}

/** The check ids this page was opened with (?check=…), or a problem with them. @returns {{ids: string[], problem: string}} */
export function requestedChecks() {
  const raw = new URLSearchParams(location.search).get("check");
  if (raw === null) return { ids: [], problem: "" };
  const ids = raw.split(",").map(s => s.trim()).filter(Boolean);
  if (!ids.length || ids.length > MOST_IDS || !ids.every(id => CHECK_ID.test(id))) {
    return { ids: [], problem: "This link names no check: a check's id is 32 lower-case hex digits." };
  }
  return { ids, problem: "" };
}

/** @typedef {{id: string, kind: string, created: number, verdict: any, calls?: any[], calls_cut?: number}} KeptCheck */
/** @type {Map<string, KeptCheck>} the checks a link fetched, so drawing their calls asks the service nothing more */
const fetched = new Map();

/** The kept checks, in the link's order; throws an Error with the service's message. @param {string[]} ids */
export async function fetchChecks(ids) {
  return Promise.all(ids.map(async id => {
    const r = await fetch("/v1/checks/" + id, { headers: headers() });
    if (!r.ok) {
      throw new Error(r.status === 404 ? "This link's check is not kept by the service (unknown, expired, or " +
        "checked with another API key)." : await errorText(r));
    }
    /** @type {KeptCheck} */
    const kept = await r.json();
    fetched.set(id, kept);
    return kept;
  }));
}

/**
 * The kept check with its model calls, for a check reopened by its id; null when the service no longer keeps it
 * or cannot be asked (the verdict is drawn all the same, only its calls are missing).
 * @param {string | null | undefined} id @returns {Promise<KeptCheck | null>}
 */
export async function keptCalls(id) {
  if (!id || !CHECK_ID.test(id)) return null;
  const known = fetched.get(id);
  if (known) { fetched.delete(id); return known; } // drawn once; a later opening asks again
  try {
    const r = await fetch("/v1/checks/" + id, { headers: headers() });
    return r.ok ? await r.json() : null;
  } catch (_) {
    return null;
  }
}

/** What a reopened check says of calls it made past the service's bound, or null when none were left out.
 * @param {number} kept @param {number} cut */
export function cutCallsText(kept, cut) {
  if (!cut) return null;
  return "Model calls: the first " + kept + " of " + (kept + cut) + " are shown. The service keeps a bounded " +
    "amount of a check's calls, so the last " + (cut === 1 ? "one was" : cut + " were") + " not kept.";
}

/** A Recent-checks item for kept checks: one claim, one response, one chat reply (the guard's), or several claims
 * (a comparison).
 * @param {Array<{id: string, kind: string, verdict: any}>} kept
 * @returns {Omit<import("./history.js").Item, "at">} */
export function itemOf(kept) {
  const ids = kept.map(k => k.id);
  const first = kept[0].verdict;
  if (kept.length === 1 && kept[0].kind === "guard") { // a chat reply's check (the guard): response/guard-view.js
    return { kind: "guard", claim: String(first.original_text || "").slice(0, 300), label: first.label,
      decided_by: "", verdict: first, check_ids: ids };
  }
  if (kept.length === 1 && kept[0].kind === "response") {
    return { kind: "response", claim: String(first.response || "").slice(0, 300), label: first.label,
      decided_by: first.decided_by, verdict: first, check_ids: ids };
  }
  if (kept.length === 1) {
    return { kind: "claim", claim: first.claim, label: first.label, decided_by: first.decided_by, verdict: first,
      check_ids: ids };
  }
  if (kept.some(k => k.kind !== "claim")) throw new Error("This link mixes a response or chat reply check with claims: no page draws that.");
  return { kind: "compare", claim: first.claim, label: null, decided_by: "", verdicts: kept.map(k => k.verdict),
    check_ids: ids };
}
