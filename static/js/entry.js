// Safe entry at the table, for every form with data-entry (docs/entry.md):
//
// - Enter in a field moves the focus to the next field and never submits: only the submit
//   button does (Enter on a button still presses it). A picker with its list open takes Enter
//   for itself (picker.js, which runs first).
// - Fields marked data-entry-skip are passed over by Enter (Tab still reaches them).
// - After htmx re-draws the form (unless it is data-entry="server-focus": its HTML says, by autofocus): the first field in error (aria-invalid) gets the focus; else,
//   when a row was added ([data-row]), the first field of the new row; else the field that had it.
// - Saving fewer rows than the form declares (data-declared) is asked by the server, which answers
//   with a confirmation step (testable without JavaScript); its button gets the focus.
(function () {
  "use strict";

  const FIELDS = "input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])";
  const FOCUSABLE = FIELDS + ", button:not([disabled])";
  const TYPING = ["text", "number", "search", "tel", "email", "url", "datetime-local", "date", "time", "radio", "checkbox"];

  function visible(element) {
    return !!(element.offsetWidth || element.offsetHeight || element.getClientRects().length);
  }

  function focusNext(form, from) {
    // Cells marked data-entry-skip (a bridge movement's prefilled pair numbers) are passed over; Tab reaches them.
    const all = Array.from(form.querySelectorAll(FOCUSABLE)).filter(
      (element) => element === from || (visible(element) && !element.hasAttribute("data-entry-skip")),
    );
    let index = all.indexOf(from);
    // Radios of one group are one stop, as Tab makes them.
    while (index + 1 < all.length && from.type === "radio" && all[index + 1].name === from.name) index += 1;
    const next = all[index + 1];
    if (next) {
      next.focus();
      if (next.select && next.type !== "radio" && next.type !== "checkbox") next.select();
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.pickerHandled || event.isComposing) return;
    const field = event.target;
    const form = field.form || (field.closest && field.closest("form"));
    if (!form || !form.hasAttribute("data-entry")) return;
    if (field.tagName === "TEXTAREA" || field.tagName === "BUTTON") return;
    if (field.tagName === "INPUT" && !TYPING.includes(field.type)) return;
    event.preventDefault();
    focusNext(form, field);
  });

  let before = null;

  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const target = event.detail.target;
    if (!target || !target.querySelector || !target.querySelector("form[data-entry]")) return;
    // A form whose server names the field to focus (autofocus in the swapped HTML) keeps that choice.
    if (target.querySelector("form[data-entry=server-focus]")) return;
    const active = document.activeElement;
    before = {
      rows: target.querySelectorAll("[data-row]").length,
      focused: active && target.contains(active) ? active.id || active.name || null : null,
    };
  });

  function settle(root) {
    const form = root.querySelector ? root.querySelector("form[data-entry]") : null;
    if (!form) return;
    const invalid = root.querySelector("[data-confirm-step] button, [aria-invalid=true]");
    const rows = form.querySelectorAll("[data-row]");
    let target = null;
    if (invalid) {
      target = invalid.matches(FOCUSABLE) ? invalid : invalid.querySelector(FOCUSABLE);
    } else if (before && rows.length > before.rows) {
      target = rows[rows.length - 1].querySelector(FIELDS);
    } else if (before && before.focused) {
      target = document.getElementById(before.focused) || form.querySelector(`[name="${CSS.escape(before.focused)}"]`);
    }
    before = null;
    if (target) target.focus();
  }

  // Only after a swap of the entry form itself (beforeSwap saw it): not a picker's list or a live check.
  document.body.addEventListener("htmx:afterSettle", () => {
    if (before) settle(document.body);
  });

  // A page that comes back with an error (no JavaScript swap: a 400 page) focuses it too.
  settle(document.body);
})();
