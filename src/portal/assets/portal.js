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
