// Provider portal: progressive enhancement only. Every page works without this file.

function announce(id, text) {
  const status = document.querySelector(`[data-copy-status="${id}"]`);
  if (status) status.textContent = text;
}

async function copyValue(id) {
  const input = document.getElementById(id);
  if (!input) return;
  try {
    await navigator.clipboard.writeText(input.value);
    announce(id, 'Copied to the clipboard.');
  } catch {
    // Plain http on a non-local address has no clipboard API: select the text for Ctrl+C instead.
    input.focus();
    input.select();
    announce(id, 'Selected: press Ctrl+C (or Cmd+C) to copy.');
  }
}

/** `2026-05-01 09:03:07 CDT`: the same shape as the server's UTC text, in the given zone. */
function zonedText(date, zone) {
  const parts = {};
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
  for (const p of format.formatToParts(date)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

/** Times in the organization's zone when it has set one, else in this browser's; UTC stays in the title. */
function localizeTimes() {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  let zone = document.body.dataset.timeZone || browserZone;
  for (const el of document.querySelectorAll('time[datetime]')) {
    const date = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(date.getTime())) continue;
    try {
      el.textContent = zonedText(date, zone);
    } catch {
      zone = browserZone; // a zone this browser does not know: its own zone rather than none
      el.textContent = zonedText(date, zone);
    }
    el.dataset.zone = zone;
  }
}

/** The checks filter's dates are days in the organization's zone, else in this browser's: say which. */
function fillBrowserZone() {
  if (document.body.dataset.timeZone) return;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const input of document.querySelectorAll('input[data-browser-zone]')) input.value = zone;
}

document.addEventListener('DOMContentLoaded', () => {
  localizeTimes();
  fillBrowserZone();
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => copyValue(button.dataset.copy));
  }
  for (const button of document.querySelectorAll('button[data-print]')) {
    button.hidden = false;
    button.addEventListener('click', () => window.print());
  }
  for (const input of document.querySelectorAll('[data-select-on-focus]')) {
    input.addEventListener('focus', () => input.select());
  }
  // After a failed submit, move focus to the list of problems so keyboard and screen reader users hear it.
  const summary = document.querySelector('.error-summary[tabindex]');
  if (summary) summary.focus();
});

/**
 * The payer field of "Run a check" when the directory is large: suggestions from /portal/payers as one types,
 * ranked like GET /api/payers (typos, abbreviations, states), in a list the keyboard can walk. It replaces
 * the field's datalist, which a browser filters by its own substring rule (and would hide "aetna" for "aetan").
 */
function payerSuggestions(input) {
  const list = document.createElement('ul');
  list.id = `${input.id}-suggestions`;
  list.className = 'payer-suggestions';
  list.setAttribute('role', 'listbox');
  list.hidden = true;
  input.after(list);
  input.removeAttribute('list');
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');
  let timer;
  let active = -1;
  let asked = 0;
  const options = () => [...list.querySelectorAll('[role="option"]')];
  const close = () => {
    list.hidden = true;
    active = -1;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  };
  const choose = (option) => {
    input.value = option.dataset.id;
    close();
  };
  const highlight = (i) => {
    const all = options();
    if (!all.length) return;
    active = (i + all.length) % all.length;
    all.forEach((o, k) => {
      o.setAttribute('aria-selected', String(k === active));
    });
    input.setAttribute('aria-activedescendant', all[active].id);
  };
  async function refresh() {
    const q = input.value.trim();
    const mine = ++asked;
    if (!q) return close();
    const res = await fetch(`${input.dataset.payerSearch}?q=${encodeURIComponent(q)}`);
    if (!res.ok || mine !== asked) return;
    const { payers } = await res.json();
    if (mine !== asked) return;
    list.replaceChildren(
      ...payers.map((p, k) => {
        const option = document.createElement('li');
        option.id = `${list.id}-${k}`;
        option.setAttribute('role', 'option');
        option.dataset.id = p.id;
        option.textContent = `${p.name} (${p.id})`;
        // mousedown, not click: the field's blur would close the list before a click lands.
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          choose(option);
        });
        return option;
      }),
    );
    active = -1;
    list.hidden = !payers.length;
    input.setAttribute('aria-expanded', String(!list.hidden));
  }
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => refresh().catch(close), 120);
  });
  input.addEventListener('keydown', (event) => {
    if (list.hidden) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      highlight(active + (event.key === 'ArrowDown' ? 1 : -1));
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      choose(options()[active]);
    } else if (event.key === 'Escape') {
      close();
    }
  });
  input.addEventListener('blur', close);
}

document.addEventListener('DOMContentLoaded', () => {
  for (const input of document.querySelectorAll('input[data-payer-search]')) payerSuggestions(input);
});
