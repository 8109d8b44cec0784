// @ts-check
/* The claim form's options, drawn from the catalogue (GET /v1/methods): each option comes with its field's
   title (the label), description (the help line), group and importance, and a JSON Schema of its value, so
   a new setting appears here, labelled and in its place, without a line of HTML. The method's main options
   come first; the rest, and the shared ones, sit under "More options", one section per group. */
import { el } from "./dom.js";

/** @typedef {import("./state.js").OptionInfo} OptionInfo */
/** @typedef {{option: OptionInfo, node: HTMLElement, read: () => any, write: (value: any) => void}} Field */

/** @param {string[]} values @param {unknown} chosen */
function select(values, chosen) {
  const node = el("select");
  values.forEach(v => {
    const opt = el("option", "", v);
    opt.value = v;
    if (v === chosen) opt.selected = true;
    node.append(opt);
  });
  return node;
}

/* A list of choices (Tool-MAD's agents): one select per item. Where the schema bounds the count (minItems,
   maxItems), buttons add an item up to the most and take the last one away down to the fewest. */
/** @param {OptionInfo} option @param {string} id @param {string[]} choices
 * @returns {{nodes: HTMLElement[], read: () => any, write: (value: any) => void}} */
function list(option, id, choices) {
  const schema = option.value_schema || {};
  const chosen = /** @type {string[]} */ (option.default || []);
  const fewest = Math.max(1, schema.minItems || 1);
  const most = Math.max(fewest, schema.maxItems || chosen.length || 1);
  /** @param {number} i */
  const pick = i => {
    const node = select(choices, chosen[i] !== undefined ? chosen[i] : choices[0]);
    node.id = id + "-" + (i + 1);
    node.setAttribute("aria-label", (option.title || option.name) + ", " + (i + 1) + " of up to " + most);
    return node;
  };
  const picks = Array.from({ length: Math.min(most, Math.max(fewest, chosen.length)) }, (_, i) => pick(i));
  const add = /** @type {HTMLButtonElement} */ (el("button", "secondary list-add", "+ Add one"));
  const drop = /** @type {HTMLButtonElement} */ (el("button", "secondary list-drop", "− Remove the last"));
  add.type = drop.type = "button"; // not a submit
  add.title = "Up to " + most;
  const update = () => {
    add.hidden = picks.length >= most;
    drop.hidden = picks.length <= fewest;
  };
  const grow = () => {
    const node = pick(picks.length);
    const describedBy = picks[0].getAttribute("aria-describedby");
    if (describedBy) node.setAttribute("aria-describedby", describedBy);
    picks[picks.length - 1].after(node);
    picks.push(node);
    return node;
  };
  add.addEventListener("click", () => {
    const node = grow();
    update();
    node.focus();
  });
  drop.addEventListener("click", () => {
    const last = picks.pop();
    if (last) last.remove();
    update();
    (add.hidden ? drop : add).focus(); // the button just pressed may have gone
  });
  update();
  /** As many picks as `values` (within the bounds), each showing its value. @param {any} values */
  const write = values => {
    if (!Array.isArray(values)) return;
    while (picks.length < Math.min(most, values.length)) grow();
    while (picks.length > Math.max(fewest, values.length)) picks.pop()?.remove();
    picks.forEach((p, i) => { if (values[i] !== undefined && choices.includes(values[i])) p.value = values[i]; });
    update();
  };
  const bounded = schema.maxItems !== undefined && most > fewest;
  return { nodes: bounded ? [...picks, add, drop] : picks, read: () => picks.map(p => p.value), write };
}

/* A yes/no option whose default is unset (the library decides from the model: Tool-MAD's label guide and
   offline scoring): Unset, On or Off, and Unset sends nothing. A checkbox sends false when left alone, which
   turns off what the command line and the Python API leave to the library: the page's check of a claim
   would not be theirs. */
/** @param {string} id @returns {{nodes: HTMLElement[], read: () => any, write: (value: any) => void}} */
function unsetOnOff(id) {
  const pick = /** @type {HTMLSelectElement} */ (el("select"));
  pick.id = id;
  [["", "Unset (as the help says)"], ["on", "On"], ["off", "Off"]].forEach(([value, words]) => {
    const opt = /** @type {HTMLOptionElement} */ (el("option", "", words));
    opt.value = value;
    pick.append(opt);
  });
  return { nodes: [pick], read: () => (pick.value === "" ? undefined : pick.value === "on"),
    write: value => { pick.value = value === true ? "on" : value === false ? "off" : ""; } };
}

/* The control(s) of one option and how to read them: read() gives the value, or undefined when empty;
   write() shows a value read before (a draft put back after a reload). */
/** @param {OptionInfo} option @param {string} id
 * @returns {{nodes: HTMLElement[], read: () => any, write: (value: any) => void, check?: boolean}} */
function control(option, id) {
  const schema = option.value_schema || {};
  const itemChoices = schema.items && (schema.items.enum || schema.items["x-choices"]);
  const choices = schema.enum || schema["x-choices"];
  if (schema.type === "array" && itemChoices) {
    return list(option, id, itemChoices);
  }
  if (choices) {
    const pick = select(choices, option.default);
    pick.id = id;
    return { nodes: [pick], read: () => pick.value,
      write: value => { if (choices.includes(value)) pick.value = value; } };
  }
  if (schema.type === "boolean" && (option.default === null || option.default === undefined)) {
    return unsetOnOff(id);
  }
  if (schema.type === "boolean") {
    const box = el("input");
    box.type = "checkbox";
    box.id = id;
    box.checked = Boolean(option.default);
    return { nodes: [box], read: () => box.checked, write: value => { box.checked = Boolean(value); }, check: true };
  }
  const input = el("input");
  input.id = id;
  const numeric = schema.type === "integer" || schema.type === "number";
  input.type = numeric ? "number" : "text";
  if (schema.minimum !== undefined) input.min = schema.minimum;
  if (schema.maximum !== undefined) input.max = schema.maximum;
  if (schema.type === "number") input.step = "any";
  if (option.default !== null && option.default !== undefined) input.value = option.default;
  const read = () => {
    if (input.value === "") return undefined;
    if (schema.type === "array") return input.value.split(",").map(s => s.trim()).filter(Boolean);
    return schema.type === "integer" ? parseInt(input.value, 10)
      : schema.type === "number" ? parseFloat(input.value) : input.value;
  };
  /** @param {any} value */
  const write = value => { input.value = value === undefined || value === null ? "" : Array.isArray(value) ?
    value.join(", ") : String(value); };
  return { nodes: [input], read, write };
}

/* The page runs single checks, never an evaluation: a dataset's options ("eval") are not drawn. */
/** @param {OptionInfo} option */
export const onPage = option => option.only !== "eval";

/* One option: its label (the field's title), its control(s) and a one-line help (the description). */
/** @param {OptionInfo} option @param {string} [prefix] of its controls' ids (another form's fields differ) @returns {Field} */
export function field(option, prefix) {
  const id = (prefix || "opt-") + option.name;
  const made = control(option, id);
  const wrap = el("div", "option" + (made.check ? " check" : ""));
  wrap.dataset.option = option.name;
  if (option.only) wrap.dataset.only = option.only;
  const label = el("label", "option-label", option.title || option.name);
  label.htmlFor = made.nodes[0].id;
  const help = el("p", "option-help", option.help || "");
  help.id = id + "-help";
  made.nodes.filter(node => node.tagName !== "BUTTON").forEach(node => node.setAttribute("aria-describedby", help.id));
  const controls = el("div", "option-controls");
  controls.append(...made.nodes);
  if (made.check) wrap.append(controls, label, help); else wrap.append(label, controls, help);
  return { option, node: wrap, read: made.read, write: made.write };
}

/* Draws the chosen method's options (its main ones first, the rest and the shared ones by group under
   "More options"); read() collects the chosen values. */
export class OptionsForm {
  /** @param {HTMLElement} mainHost @param {HTMLElement} moreHost @param {string[]} [skip] names drawn elsewhere */
  constructor(mainHost, moreHost, skip) {
    this.mainHost = mainHost;
    this.moreHost = moreHost;
    this.skip = new Set(skip || []);
    /** @type {Field[]} */
    this.fields = [];
    /** @type {Field[]} drawn once: what was chosen stays chosen when the method changes */
    this.shared = [];
    /** @type {{methods: import("./state.js").MethodInfo[], shared_options: OptionInfo[], groups: Record<string, string>}} */
    this.catalogue = { methods: [], shared_options: [], groups: {} };
    /** @type {string} the page's mode: an option for one kind of check only ("response") shows in that one */
    this.mode = "claim";
  }

  /** @param {import("./state.js").Catalogue} catalogue */
  load(catalogue) {
    this.catalogue = catalogue;
    this.shared = (catalogue.shared_options || []).filter(o => !this.skip.has(o.name) && onPage(o)).map(o => field(o));
  }

  /** @param {string} method */
  show(method) {
    const info = (this.catalogue.methods || []).find(m => m.name === method) || { options: [] };
    const own = info.options.filter(onPage).map(o => field(o));
    own.forEach(f => f.node.classList.add("own")); // the method's own: not sent when methods are compared
    const shared = this.shared;
    this.fields = [...own, ...shared];
    this.mainHost.replaceChildren(...own.filter(f => f.option.main).map(f => f.node));
    /** @type {Map<string, Field[]>} */
    const groups = new Map(Object.keys(this.catalogue.groups || {}).map(key => [key, []]));
    [...own.filter(f => !f.option.main), ...shared].forEach(f => {
      const key = f.option.group && groups.has(f.option.group) ? f.option.group : ""; // "": no known group
      const members = groups.get(key) || [];
      groups.set(key, [...members, f]);
    });
    this.moreHost.replaceChildren();
    groups.forEach((members, key) => {
      if (!members.length) return;
      const set = el("fieldset", "option-group");
      set.dataset.group = key || "other";
      set.append(el("legend", "", (this.catalogue.groups || {})[key] || "Other"), ...members.map(f => f.node));
      this.moreHost.append(set);
    });
    this.setMode(this.mode);
  }

  /* Shows the options that matter to the mode's checks; a section left empty is hidden with them. */
  /** @param {string} mode */
  setMode(mode) {
    this.mode = mode;
    this.fields.forEach(f => { f.node.hidden = Boolean(f.option.only) && f.option.only !== mode; });
    this.moreHost.querySelectorAll("fieldset.option-group").forEach(set => {
      /** @type {HTMLElement} */ (set).hidden = ![...set.querySelectorAll(".option")].some(n => !(/** @type {HTMLElement} */ (n).hidden));
    });
  }

  /** @param {boolean} [sharedOnly] only the settings every method shares (a comparison runs each at its defaults) */
  read(sharedOnly) {
    /** @type {Record<string, any>} */
    const out = {};
    (sharedOnly ? this.shared : this.fields).forEach(f => {
      if (f.node.hidden) return; // not for this mode's checks
      const value = f.read();
      if (value !== undefined) out[f.option.name] = value;
    });
    return out;
  }

  /** Every option's value as the form shows it, the mode's or not (a draft kept across a reload). */
  values() {
    /** @type {Record<string, any>} */
    const out = {};
    this.fields.forEach(f => { out[f.option.name] = f.read() ?? null; }); // an emptied field stays empty
    return out;
  }

  /** Shows `values` (from values()) in the fields of the method drawn now. @param {Record<string, any>} values */
  write(values) {
    this.fields.forEach(f => { if (f.option.name in values) f.write(values[f.option.name]); });
  }

  /* Score thresholds of the chosen options ("faithfulness_threshold" -> faithfulness), for the gauges. */
  /** @param {Record<string, any>} values @returns {Record<string, number>} */
  thresholds(values) {
    /** @type {Record<string, number>} */
    const out = {};
    Object.entries(values).forEach(([name, value]) => {
      if (name.endsWith("_threshold")) out[name.slice(0, -"_threshold".length)] = value;
    });
    if (out.relevance !== undefined) out.answer_relevance = out.relevance;
    return out;
  }
}

