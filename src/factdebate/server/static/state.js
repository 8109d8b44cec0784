// @ts-check
/* The page's state, owned here and nowhere else: the mode of the form (a claim, a response, a comparison),
   which mode has a run going on, the catalogue of the server, the API key. Parts of the page read it and
   subscribe to its changes instead of leaving flags on DOM nodes for one another. */

/** @typedef {"claim" | "response" | "compare"} Mode */
/** @typedef {{name: string, title: string, help: string, value_schema: any, default: any, group?: string | null, main?: boolean,
 *   only?: string | null}} OptionInfo */
/** @typedef {{name: string, description: string, roles: string[], options: OptionInfo[], view: any}} MethodInfo */
/** @typedef {{methods: MethodInfo[], shared_options: OptionInfo[], search_engines: string[], llms: string[],
 *   defaults: Record<string, any>, groups: Record<string, string>}} Catalogue */
/** @typedef {{mode: Mode, busy: Mode | null, catalogue: Catalogue | null, key: string}} State */

const KEY_STORE = "factdebate.apiKey";

/** @type {State} */
const state = { mode: "claim", busy: null, catalogue: null, key: localStorage.getItem(KEY_STORE) || "" };
/** @type {Array<(state: State, changed: Partial<State>) => void>} */
const listeners = [];

/** @returns {Readonly<State>} */
export function get() { return state; }

/** @param {Partial<State>} changes */
export function set(changes) {
  Object.assign(state, changes);
  if ("key" in changes) localStorage.setItem(KEY_STORE, state.key);
  listeners.forEach(listen => listen(state, changes));
}

/** @param {(state: State, changed: Partial<State>) => void} listen */
export function subscribe(listen) { listeners.push(listen); }
