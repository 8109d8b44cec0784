// @ts-check
/* The claim form's options, drawn from the catalogue (GET /v1/methods): each option comes with its field's
   title (the label), description (the help line), group and importance, and a JSON Schema of its value, so
   a new setting appears here, labelled and in its place, without a line of HTML. The method's main options
   come first; the rest, and the shared ones, sit under "More options", one section per group. */
import { el } from "./dom.js";

/** @typedef {import("./state.js").OptionInfo} OptionInfo */
/** @typedef {{option: OptionInfo, node: HTMLElement, read: () => any}} Field */

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

/* The control(s) of one option and how to read them: read() gives the value, or undefined when empty. */
/** @param {OptionInfo} option @param {string} id
 * @returns {{nodes: HTMLElement[], read: () => any, check?: boolean}} */
function control(option, id) {
  const schema = option.value_schema || {};
  const itemChoices = schema.items && (schema.items.enum || schema.items["x-choices"]);
  const choices = schema.enum || schema["x-choices"];
  if (schema.type === "array" && itemChoices) {
    const count = Math.max(1, (option.default || []).length);
    const picks = Array.from({ length: count }, (_, i) => {
      const pick = select(itemChoices, (option.default || [])[i]);
      pick.id = id + "-" + (i + 1);
      return pick;
    });
    return { nodes: picks, read: () => picks.map(p => p.value) };
  }
  if (choices) {
    const pick = select(choices, option.default);
    pick.id = id;
    return { nodes: [pick], read: () => pick.value };
  }
  if (schema.type === "boolean") {
    const box = el("input");
    box.type = "checkbox";
    box.id = id;
    box.checked = Boolean(option.default);
    return { nodes: [box], read: () => box.checked, check: true };
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
  return { nodes: [input], read };
}

/* One option: its label (the field's title), its control(s) and a one-line help (the description). */
/** @param {OptionInfo} option @param {string} [prefix] of its controls' ids (another form's fields differ) @returns {Field} */
export function field(option, prefix) {
  const id = (prefix || "opt-") + option.name;
  const made = control(option, id);
  const wrap = el("div", "option" + (made.check ? " check" : ""));
  wrap.dataset.option = option.name;
  const label = el("label", "option-label", option.title || option.name);
  label.htmlFor = made.nodes[0].id;
  const help = el("p", "option-help", option.help || "");
  help.id = id + "-help";
  made.nodes.forEach(node => node.setAttribute("aria-describedby", help.id));
  const controls = el("div", "option-controls");
  controls.append(...made.nodes);
  if (made.check) wrap.append(controls, label, help); else wrap.append(label, controls, help);
  return { option, node: wrap, read: made.read };
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
  }

  /** @param {import("./state.js").Catalogue} catalogue */
  load(catalogue) {
    this.catalogue = catalogue;
    this.shared = (catalogue.shared_options || []).filter(o => !this.skip.has(o.name)).map(o => field(o));
  }

  /** @param {string} method */
  show(method) {
    const info = (this.catalogue.methods || []).find(m => m.name === method) || { options: [] };
    const own = info.options.map(o => field(o));
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
  }

  /** @param {boolean} [sharedOnly] only the settings every method shares (a comparison runs each at its defaults) */
  read(sharedOnly) {
    /** @type {Record<string, any>} */
    const out = {};
    (sharedOnly ? this.shared : this.fields).forEach(f => {
      const value = f.read();
      if (value !== undefined) out[f.option.name] = value;
    });
    return out;
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

