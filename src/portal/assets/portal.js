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

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => copyValue(button.dataset.copy));
  }
  for (const input of document.querySelectorAll('[data-select-on-focus]')) {
    input.addEventListener('focus', () => input.select());
  }
  // After a failed submit, move focus to the list of problems so keyboard and screen reader users hear it.
  const summary = document.querySelector('.error-summary[tabindex]');
  if (summary) summary.focus();
});
