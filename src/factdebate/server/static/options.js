/* The claim form's method options, drawn from the catalogue (GET /v1/methods): each method lists its
   options with a JSON Schema of the value, so a new method's settings appear here without a line of HTML. */
"use strict";

(() => {
  const { el } = window.FactDebate;

  function title(name) {
    const text = name.replace(/_/g, " ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

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

  /* One option as form controls; returns { node, read } where read() gives the value or undefined. */
  function field(option, host) {
    const schema = option.value_schema || {};
    const label = el("label", "", title(option.name) + " ");
    label.title = option.help || "";
    let read;
    const itemChoices = schema.items && (schema.items.enum || schema.items["x-choices"]);
    const choices = schema.enum || schema["x-choices"];
    if (schema.type === "array" && itemChoices) {
      const count = Math.max(1, (option.default || []).length);
      const picks = [];
      for (let i = 0; i < count; i++) {
        const pick = select(itemChoices, (option.default || [])[i]);
        pick.id = "opt-" + option.name + "-" + (i + 1);
        picks.push(pick);
        label.append(pick);
      }
      read = () => picks.map(p => p.value);
    } else if (choices) {
      const pick = select(choices, option.default);
      pick.id = "opt-" + option.name;
      label.append(pick);
      read = () => pick.value;
    } else if (schema.type === "boolean") {
      const box = el("input");
      box.type = "checkbox";
      box.id = "opt-" + option.name;
      box.checked = Boolean(option.default);
      label.className = "check";
      label.prepend(box);
      read = () => box.checked;
    } else {
      const input = el("input");
      input.id = "opt-" + option.name;
      const numeric = schema.type === "integer" || schema.type === "number";
      input.type = numeric ? "number" : "text";
      if (schema.minimum !== undefined) input.min = schema.minimum;
      if (schema.maximum !== undefined) input.max = schema.maximum;
      if (schema.type === "number") input.step = "any";
      if (option.default !== null && option.default !== undefined) input.value = option.default;
      label.append(input);
      read = () => {
        if (input.value === "") return undefined;
        if (schema.type === "array") return input.value.split(",").map(s => s.trim()).filter(Boolean);
        return schema.type === "integer" ? parseInt(input.value, 10)
          : schema.type === "number" ? parseFloat(input.value) : input.value;
      };
    }
    host.append(label);
    return { option, read };
  }

  /* Draws the options of `method` (and the shared ones once); read() collects the chosen values. */
  class OptionsForm {
    constructor(methodHost, sharedHost, skip) {
      this.methodHost = methodHost;
      this.sharedHost = sharedHost;
      this.skip = new Set(skip || []);
      this.fields = [];
      this.shared = [];
    }

    load(catalogue) {
      this.catalogue = catalogue;
      this.sharedHost.replaceChildren();
      this.shared = (catalogue.shared_options || []).filter(o => !this.skip.has(o.name))
        .map(o => field(o, this.sharedHost));
    }

    show(method) {
      this.methodHost.replaceChildren();
      const info = (this.catalogue.methods || []).find(m => m.name === method) || { options: [] };
      this.fields = info.options.map(o => field(o, this.methodHost));
    }

    read() {
      const out = {};
      [...this.shared, ...this.fields].forEach(f => {
        const value = f.read();
        if (value !== undefined) out[f.option.name] = value;
      });
      return out;
    }

    /* Score thresholds of the chosen options ("faithfulness_threshold" -> faithfulness), for the gauges. */
    thresholds(values) {
      const out = {};
      Object.entries(values).forEach(([name, value]) => {
        if (name.endsWith("_threshold")) out[name.slice(0, -"_threshold".length)] = value;
      });
      if (out.relevance !== undefined) out.answer_relevance = out.relevance;
      return out;
    }
  }

  window.FactDebate.OptionsForm = OptionsForm;
})();
