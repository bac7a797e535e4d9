// Drafts of the entry pages (docs/entry.md): a form with data-draft is kept in the browser as it is typed.
//
// - The draft is the form's fields (the pickers' chosen ids and visible names included; never the CSRF
//   token), in localStorage under the page and the signed-in user (data-draft, data-draft-user), so two
//   referees on one machine never see each other's. It is written shortly after each change, and at once
//   when the page is hidden or left: it survives a reload, a wrong link and a closed tab.
// - Opened again with a draft, the page offers it back ("Restore the entry you were typing at 18:42?",
//   Restore / Discard; the words are the form's data-draft-* attributes, translated by the server). A form
//   whose fields the server draws from its values (data-draft-redraw: Preferans' deal columns, bridge's
//   travellers) is restored by posting the draft with action=<data-draft-redraw>; any other is filled in.
//   Until the referee answers, the old draft is kept as it is.
// - Saved (htmx's "result-saved" event, or a correction's HX-Redirect) or discarded, the draft is dropped.
// - Leaving the page while it holds input that is not saved asks first (beforeunload); submitting does not.
//   "Input" is what differs from the form as the server drew it at load or after the last save.
(function () {
  "use strict";

  const PREFIX = "cardrank:draft:";
  const NEVER = ["csrfmiddlewaretoken"];
  const SKIPPED_TYPES = ["submit", "button", "reset", "file", "password", "image"];
  const WAIT = 300; // ms after the last change before the draft is written
  const MAX_AGE = 14 * 24 * 3600 * 1000; // an older draft is dropped, not offered

  let baseline = null; // the fields as the server drew them (load, or after a save): [[name, value]]
  let pending = false; // a draft is offered and not yet answered: it is not overwritten meanwhile
  let leaving = false; // the page is being left by a submit or a redirect after a save: no question
  let justSaved = false;
  let held = false; // the page came back from a post (no htmx) showing the draft: its input is not saved yet
  let timer = null;

  function theForm() {
    return document.querySelector("form[data-draft]");
  }

  function keyOf(form) {
    return PREFIX + (form.dataset.draftUser || "") + ":" + form.dataset.draft;
  }

  function kept(element) {
    return (
      element.name &&
      !NEVER.includes(element.name) &&
      !element.disabled &&
      element.tagName !== "BUTTON" &&
      element.tagName !== "FIELDSET" &&
      element.tagName !== "OUTPUT" &&
      !SKIPPED_TYPES.includes(element.type)
    );
  }

  // The form's fields as [[name, value]]: a radio or checkbox only when checked; `defaults` reads them as the
  // server drew them (value attributes), not as typed since (or as the browser restored them on a reload).
  function fields(form, defaults) {
    const out = [];
    for (const element of form.elements) {
      if (!kept(element)) continue;
      if (element.type === "radio" || element.type === "checkbox") {
        if (defaults ? element.defaultChecked : element.checked) out.push([element.name, element.value]);
      } else if (element.tagName === "SELECT") {
        const options = Array.from(element.options);
        let chosen = options.filter((option) => (defaults ? option.defaultSelected : option.selected));
        if (defaults && !chosen.length && options.length && !element.multiple) chosen = [options[0]];
        chosen.forEach((option) => out.push([element.name, option.value]));
      } else {
        out.push([element.name, defaults ? element.defaultValue : element.value]);
      }
    }
    return out;
  }

  // What the referee sees and types (hidden fields follow their visible ones), by name, blanks left out:
  // a new empty row is no input.
  function visibleInput(form, pairs) {
    const hidden = new Set(
      Array.from(form.elements)
        .filter((element) => element.type === "hidden")
        .map((element) => element.name),
    );
    const map = new Map();
    for (const [name, value] of pairs) {
      if (hidden.has(name) || value === "") continue;
      map.set(name, (map.has(name) ? map.get(name) + "\u0000" : "") + value);
    }
    return map;
  }

  function same(first, second) {
    if (first.size !== second.size) return false;
    for (const [name, value] of first) if (second.get(name) !== value) return false;
    return true;
  }

  function dirty(form) {
    if (held) return true;
    if (!baseline) return false;
    return !same(visibleInput(form, baseline), visibleInput(form, fields(form, false)));
  }

  function read(form) {
    try {
      const draft = JSON.parse(localStorage.getItem(keyOf(form)) || "null");
      if (!draft || !Array.isArray(draft.fields) || typeof draft.at !== "number") return null;
      if (Date.now() - draft.at > MAX_AGE) {
        localStorage.removeItem(keyOf(form));
        return null;
      }
      return draft;
    } catch (error) {
      return null;
    }
  }

  function drop(form) {
    try {
      localStorage.removeItem(keyOf(form));
    } catch (error) {
      /* storage unavailable: nothing was kept */
    }
  }

  function save() {
    clearTimeout(timer);
    timer = null;
    const form = theForm();
    if (!form || pending || leaving) return;
    if (!dirty(form)) {
      drop(form);
      return;
    }
    try {
      localStorage.setItem(keyOf(form), JSON.stringify({ at: Date.now(), fields: fields(form, false) }));
    } catch (error) {
      /* storage full or refused: the page still asks before it is left */
    }
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(save, WAIT);
  }

  function two(number) {
    return String(number).padStart(2, "0");
  }

  // 18:42 today, else 2026-12-01 18:42: the site writes times so.
  function when(at) {
    const time = new Date(at);
    const clock = two(time.getHours()) + ":" + two(time.getMinutes());
    if (time.toDateString() === new Date().toDateString()) return clock;
    return time.getFullYear() + "-" + two(time.getMonth() + 1) + "-" + two(time.getDate()) + " " + clock;
  }

  function fill(form, pairs) {
    const byName = new Map();
    for (const [name, value] of pairs) {
      if (!byName.has(name)) byName.set(name, []);
      byName.get(name).push(value);
    }
    // By name only (form.elements.namedItem would also answer an element whose id is that name).
    const elementsByName = new Map();
    for (const element of form.elements) {
      if (!kept(element)) continue;
      if (!elementsByName.has(element.name)) elementsByName.set(element.name, []);
      elementsByName.get(element.name).push(element);
    }
    for (const [name, values] of byName) {
      const elements = elementsByName.get(name) || [];
      let next = 0;
      for (const element of elements) {
        if (element.type === "radio" || element.type === "checkbox") {
          element.checked = values.includes(element.value);
        } else if (element.tagName === "SELECT") {
          Array.from(element.options).forEach((option) => (option.selected = values.includes(option.value)));
        } else if (next < values.length) {
          element.value = values[next++];
        }
      }
    }
    // A picker shows its chosen player's name: picker.js keeps the id while the text is that name.
    form.querySelectorAll("[data-picker]").forEach((picker) => {
      const input = picker.querySelector("[role=combobox]");
      const hidden = picker.querySelector("[data-picker-value]");
      if (input && hidden) input.dataset.chosen = hidden.value ? input.value : "";
    });
  }

  function redraw(form, pairs) {
    const values = {};
    for (const [name, value] of pairs) {
      values[name] = name in values ? [].concat(values[name], value) : value;
    }
    values.action = form.dataset.draftRedraw;
    window.htmx.ajax("POST", form.getAttribute("hx-post") || form.action, {
      source: form,
      target: form.getAttribute("hx-target") || form,
      swap: form.getAttribute("hx-swap") || "outerHTML",
      values: values,
    });
  }

  function offer(form, draft) {
    pending = true;
    const box = document.createElement("div");
    box.className = "notice draft-offer";
    box.id = "draft-offer";
    box.setAttribute("role", "alert");
    const question = document.createElement("p");
    question.textContent = (form.dataset.draftOffer || "").replace("{time}", when(draft.at));
    const buttons = document.createElement("p");
    buttons.className = "row";
    const restore = document.createElement("button");
    restore.type = "button";
    restore.textContent = form.dataset.draftRestore || "";
    restore.dataset.draftAnswer = "restore";
    const discard = document.createElement("button");
    discard.type = "button";
    discard.className = "secondary";
    discard.textContent = form.dataset.draftDiscard || "";
    discard.dataset.draftAnswer = "discard";
    buttons.append(restore, discard);
    box.append(question, buttons);
    // Before what the form's swaps replace, so that a redraw meanwhile (a seat chosen) leaves the offer.
    const target = document.querySelector(form.getAttribute("hx-target") || "") || form;
    target.parentNode.insertBefore(box, target);
    box.addEventListener("click", (event) => {
      const answer = event.target.dataset && event.target.dataset.draftAnswer;
      if (!answer) return;
      box.remove();
      pending = false;
      const current = theForm();
      if (!current) return;
      if (answer === "discard") {
        drop(current);
        save(); // what was typed since the page opened, if anything, is the draft now
        return;
      }
      const saved = read(current) || draft;
      if (current.dataset.draftRedraw && window.htmx) {
        redraw(current, saved.fields);
      } else {
        fill(current, saved.fields);
        save();
        const first = current.querySelector("input:not([type=hidden]), select, textarea");
        if (first) first.focus();
      }
    });
    restore.focus();
  }

  function start() {
    const form = theForm();
    if (!form) return;
    baseline = fields(form, true);
    const draft = read(form);
    if (draft && same(visibleInput(form, draft.fields), visibleInput(form, fields(form, false)))) {
      // The page shows the draft already: it came back from a post without htmx (a redraw, an error), or the
      // browser restored the fields on a reload. Nothing to offer; it is still input not saved.
      held = true;
      save();
    } else if (draft) {
      offer(form, draft);
    } else if (dirty(form)) {
      save(); // the browser restored what was typed before a reload
    }
  }

  function inDraftForm(element) {
    return !!(element && element.closest && element.closest("form[data-draft]"));
  }

  document.addEventListener("input", (event) => {
    if (inDraftForm(event.target)) later();
  });
  document.addEventListener("change", (event) => {
    if (inDraftForm(event.target)) later();
  });

  // A saved result: the server answers a fresh form with HX-Trigger: result-saved (games/entry.py).
  document.body.addEventListener("result-saved", () => {
    const form = theForm();
    if (form) drop(form);
    justSaved = true;
  });

  // A saved correction answers HX-Redirect (to the match's admin page): the draft is done, the page is left.
  document.body.addEventListener("htmx:beforeOnLoad", (event) => {
    const xhr = event.detail.xhr;
    if (!inDraftForm(event.detail.elt) || !xhr || !xhr.getResponseHeader("HX-Redirect")) return;
    if (xhr.status >= 200 && xhr.status < 300) {
      drop(theForm());
      leaving = true;
    }
  });

  document.body.addEventListener("htmx:afterSettle", () => {
    const form = theForm();
    if (!form) return;
    if (justSaved) {
      justSaved = false;
      held = false;
      baseline = fields(form, true);
      drop(form);
      return;
    }
    later(); // the server redrew the form from its values (a row added, a player chosen): keep them
  });

  // A form posted without htmx leaves the page on purpose; htmx's own posts cancel the submit event.
  document.addEventListener("submit", (event) => {
    if (inDraftForm(event.target) && !event.defaultPrevented) {
      save();
      leaving = true;
    }
  });

  window.addEventListener("beforeunload", (event) => {
    const form = theForm();
    if (!form || leaving) return;
    save();
    if (!dirty(form)) return;
    event.preventDefault();
    event.returnValue = ""; // the browser's own words: pages may no longer choose them
  });

  window.addEventListener("pagehide", save);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save();
  });

  start();
})();
