// What the player pickers (static/js/picker.js) and the header's search (static/js/header-search.js)
// share: an input with role=combobox whose listbox htmx fills, opened when it has options, closed
// with no option active, and moved through with the arrow keys by aria-activedescendant (the focus
// stays in the input). Each caller passes its own options: a picker's carry player ids, the header's
// links. Loaded by base.html before both (deferred scripts run in document order).
window.cardrankCombobox = (function () {
  "use strict";

  function open(input, list) {
    const any = list.querySelector("[role=option]");
    list.hidden = !any;
    input.setAttribute("aria-expanded", any ? "true" : "false");
  }

  function close(input, list, options) {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    options.forEach((option) => option.setAttribute("aria-selected", "false"));
  }

  function activate(input, list, options, step) {
    if (!options.length) return;
    open(input, list);
    const current = options.findIndex((option) => option.id === input.getAttribute("aria-activedescendant"));
    let next = current === -1 ? (step > 0 ? 0 : options.length - 1) : current + step;
    next = (next + options.length) % options.length;
    options.forEach((option, index) => option.setAttribute("aria-selected", index === next ? "true" : "false"));
    input.setAttribute("aria-activedescendant", options[next].id);
    options[next].scrollIntoView({ block: "nearest" });
  }

  return { open, close, activate };
})();
