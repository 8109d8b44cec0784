// @ts-check
/* Each compared method's own settings (Tool-MAD's rounds, DPD's most rounds, …): a folded section per ticked
   method under the picks, drawn from the catalogue like the claim form's options. The shared settings
   (search engine, model, "More options") still come from the form and go to every method alike. */
import { el } from "./dom.js";
import { field, onPage } from "./options.js";

/** @typedef {import("./options.js").Field} Field */

export class MethodSettings {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = host;
    /** @type {Map<string, {node: HTMLElement, fields: Field[]}>} built once a method is ticked: kept when unticked */
    this.built = new Map();
    /** @type {import("./state.js").MethodInfo[]} */
    this.methods = [];
  }

  /** @param {import("./state.js").MethodInfo[]} methods */
  load(methods) {
    this.methods = methods;
    this.built.clear();
    this.host.replaceChildren();
  }

  /** Shows the settings of the ticked methods, in the picker's order. @param {string[]} ticked */
  show(ticked) {
    this.host.replaceChildren(...ticked.map(name => this.section(name)).filter(s => s !== null)
      .map(s => /** @type {{node: HTMLElement}} */ (s).node));
  }

  /** @param {string} name */
  section(name) {
    const known = this.built.get(name);
    if (known) return known;
    const info = this.methods.find(m => m.name === name);
    if (!info || !info.options.length) return null;
    // The method's main options in view, the rest folded, as the claim form draws them.
    const offered = info.options.filter(onPage); // a dataset's task options: evaluations only
    const main = offered.filter(o => o.main).map(o => field(o, "cmp-" + name + "-"));
    const rest = offered.filter(o => !o.main).map(o => field(o, "cmp-" + name + "-"));
    const fields = [...main, ...rest];
    const node = el("details", "compare-settings");
    node.dataset.method = name;
    node.append(el("summary", "", name + "'s settings"), ...main.map(f => f.node));
    if (rest.length) {
      const more = el("details", "compare-settings-more");
      more.append(el("summary", "", "Other settings (" + rest.length + ")"), ...rest.map(f => f.node));
      node.append(more);
    }
    const made = { node, fields };
    this.built.set(name, made);
    return made;
  }

  /** Shows `values` (what read() gave) in the settings of ``name`` (a draft put back after a reload).
   * @param {string} name @param {Record<string, any>} values */
  write(name, values) {
    (this.section(name)?.fields || []).forEach(f => { if (f.option.name in values) f.write(values[f.option.name]); });
  }

  /** What the user changed for ``name``: only that is sent, the rest stays the server's default. @param {string} name */
  read(name) {
    /** @type {Record<string, any>} */
    const out = {};
    (this.section(name)?.fields || []).forEach(f => {
      const value = f.read();
      if (value !== undefined && JSON.stringify(value) !== JSON.stringify(f.option.default)) out[f.option.name] = value;
    });
    return out;
  }
}
