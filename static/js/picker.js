// Player pickers (templates/games/_player_picker.html, docs/entry.md): an accessible combobox.
//
// htmx fetches the options (GET players/search/) as the referee types; this script sends the typed
// text as `q`, opens and closes the list, moves through it with the arrow keys
// (aria-activedescendant) and, on Enter or a click, puts the chosen player's id in the hidden
// field the form posts and their name in the text field. Enter never submits the form; Escape
// closes the list; typing after a choice clears the id. Listeners sit on the document, so pickers
// that htmx swaps in work at once. Without this script the text field is posted and the view
// reads it (games.pickers.picker_read).
(function () {
  "use strict";

  function pickerOf(element) {
    return element && element.closest ? element.closest("[data-picker]") : null;
  }

  function parts(picker) {
    return {
      input: picker.querySelector("[role=combobox]"),
      list: picker.querySelector("[role=listbox]"),
      hidden: picker.querySelector("[data-picker-value]"),
    };
  }

  function options(list) {
    return Array.from(list.querySelectorAll("[role=option][data-id]"));
  }

  const combobox = window.cardrankCombobox; // static/js/combobox.js

  function open(picker) {
    const { input, list } = parts(picker);
    combobox.open(input, list);
  }

  function close(picker) {
    const { input, list } = parts(picker);
    combobox.close(input, list, options(list));
  }

  function activate(picker, step) {
    const { input, list } = parts(picker);
    combobox.activate(input, list, options(list), step);
  }

  function choose(picker, option) {
    const { input, hidden } = parts(picker);
    hidden.value = option.dataset.id;
    input.value = option.dataset.name;
    input.dataset.chosen = option.dataset.name;
    input.removeAttribute("aria-invalid");
    close(picker);
    // A page may refresh on a choice (hx-trigger="picker-chosen": Preferans re-draws its deal columns).
    picker.dispatchEvent(new CustomEvent("picker-chosen", { bubbles: true }));
  }

  // Capture phase: before entry.js, which moves the focus on Enter unless a picker took the key.
  document.addEventListener(
    "keydown",
    (event) => {
      const picker = pickerOf(event.target);
      if (!picker || event.target.getAttribute("role") !== "combobox") return;
      const { input, list } = parts(picker);
      const expanded = input.getAttribute("aria-expanded") === "true";
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        activate(picker, event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Enter") {
        event.preventDefault(); // never submits the form
        const active = input.getAttribute("aria-activedescendant");
        const option = active ? document.getElementById(active) : null;
        if (expanded && option && list.contains(option)) {
          choose(picker, option);
          event.pickerHandled = true; // entry.js leaves the focus here
        } else if (expanded) {
          close(picker);
          event.pickerHandled = true;
        }
      } else if (event.key === "Escape" && expanded) {
        event.preventDefault();
        close(picker);
      }
    },
    true,
  );

  document.addEventListener("input", (event) => {
    const picker = pickerOf(event.target);
    if (!picker || event.target.getAttribute("role") !== "combobox") return;
    const { input, hidden } = parts(picker);
    if (input.value !== input.dataset.chosen) hidden.value = ""; // a new name is typed: no player until chosen
    if (!input.value.trim()) close(picker);
  });

  // Keep the focus in the text field when an option is pressed, then choose it.
  document.addEventListener("mousedown", (event) => {
    if (pickerOf(event.target) && event.target.closest("[role=option]")) event.preventDefault();
  });
  document.addEventListener("click", (event) => {
    const picker = pickerOf(event.target);
    const option = event.target.closest ? event.target.closest("[role=option][data-id]") : null;
    if (picker && option) choose(picker, option);
  });

  document.addEventListener("focusout", (event) => {
    const picker = pickerOf(event.target);
    if (picker && !picker.contains(event.relatedTarget)) close(picker);
  });

  // The search is GET players/search/?q=...: send the typed text as q, not as the form's field.
  document.body.addEventListener("htmx:configRequest", (event) => {
    const input = event.detail.elt;
    if (!pickerOf(input) || input.getAttribute("role") !== "combobox") return;
    // Only q, game and name: a picker inside a form may inherit hx-include or hx-vals from around it.
    const params = event.detail.parameters;
    const kept = { q: input.value, game: params.game || "", name: params.name || "" };
    Array.from(params.keys()).forEach((key) => delete params[key]);
    Object.entries(kept).forEach(([key, value]) => (params[key] = value));
  });

  document.body.addEventListener("htmx:afterSwap", (event) => {
    const picker = pickerOf(event.detail.target);
    if (!picker || event.detail.target.getAttribute("role") !== "listbox") return;
    const { input } = parts(picker);
    input.removeAttribute("aria-activedescendant");
    if (document.activeElement === input && input.value.trim()) open(picker);
    else close(picker);
  });
})();
