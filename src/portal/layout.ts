/**
 * The page shell (landmarks, skip link, navigation, sign-out form) and the form pieces every page uses, so
 * labels, hints and error messages are wired for screen readers the same way everywhere.
 */
import type { PortalSession } from '../tenancy/sessions.ts';
import { type HtmlValue, html, type SafeHtml } from './html.ts';

const ASSET_VERSION = '2';

export type NavItem =
  | 'checks'
  | 'run'
  | 'discovery'
  | 'batches'
  | 'monitors'
  | 'api-keys'
  | 'webhooks'
  | 'team'
  | 'organization'
  | 'fees'
  | 'scorecard';

const NAV: { id: NavItem; label: string; href: string; ownerOnly: boolean; operatorOnly?: true }[] = [
  { id: 'checks', label: 'Checks', href: '/portal/checks', ownerOnly: false },
  { id: 'run', label: 'Run a check', href: '/portal/checks/new', ownerOnly: false },
  { id: 'discovery', label: 'Find coverage', href: '/portal/discovery/new', ownerOnly: false },
  { id: 'batches', label: 'Batches', href: '/portal/batches', ownerOnly: false },
  { id: 'monitors', label: 'Monitors', href: '/portal/monitors', ownerOnly: false },
  { id: 'api-keys', label: 'API keys', href: '/portal/settings/api-keys', ownerOnly: true },
  { id: 'webhooks', label: 'Webhooks', href: '/portal/settings/webhooks', ownerOnly: true },
  { id: 'team', label: 'Team', href: '/portal/settings/team', ownerOnly: true },
  { id: 'organization', label: 'Organization', href: '/portal/settings/organization', ownerOnly: true },
  { id: 'fees', label: 'Fee schedule', href: '/portal/settings/fees', ownerOnly: true },
  {
    id: 'scorecard',
    label: 'Scorecard',
    href: '/portal/operator/scorecard',
    ownerOnly: true,
    operatorOnly: true,
  },
];

export interface PageOptions {
  title: string;
  session?: PortalSession;
  current?: NavItem;
  /** A status line shown above the content (after an action). */
  notice?: string;
  /** Reloads the page after this many seconds (a check still in progress). */
  refreshSeconds?: number;
  body: HtmlValue;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

function navigation(session: PortalSession, current: NavItem | undefined): SafeHtml {
  const items = NAV.filter(
    (n) => (!n.ownerOnly || session.user.role === 'owner') && (!n.operatorOnly || session.operator),
  );
  return html`<nav aria-label="Main"><ul class="nav">${items.map(
    (n) =>
      html`<li><a href="${n.href}"${n.id === current ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  )}</ul></nav>`;
}

/** The document's start up to `</head>`, shared by the portal pages and the print view. */
export function documentHead(o: { title: string; stylesheet: string; refreshSeconds?: number }): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${o.refreshSeconds ? html`<meta http-equiv="refresh" content="${o.refreshSeconds}">` : ''}
<title>${o.title}</title>
<link rel="icon" href="/portal/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/portal/assets/${o.stylesheet}?v=${ASSET_VERSION}">
<script src="/portal/assets/portal.js?v=${ASSET_VERSION}" defer></script>
</head>`;
}

/** A page of the settings menu: titled and headed with its menu label, marked current in the menu. */
export function settingsPage(
  s: PortalSession,
  current: Exclude<NavItem, 'checks' | 'run' | 'batches' | 'monitors'>,
  notice: string | undefined,
  body: HtmlValue,
): SafeHtml {
  const title = NAV.find((n) => n.id === current)!.label;
  return page({
    title,
    session: s,
    current,
    notice,
    body: html`<h1>${title}</h1>
${body}`,
  });
}

export function page(o: PageOptions): SafeHtml {
  const s = o.session;
  const title = `${o.title} · Eligibility portal`;
  return html`${documentHead({ title, stylesheet: 'portal.css', refreshSeconds: o.refreshSeconds })}
<body${s?.organizationTimeZone ? html` data-time-zone="${s.organizationTimeZone}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="site-head">
  <div class="bar">
    <a class="brand" href="/portal">Eligibility portal</a>
    ${
      s
        ? html`<div class="who"><span>${s.organizationName}</span> <span class="muted">${s.user.email}</span>
    <form method="post" action="/portal/logout" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="link">Sign out</button></form></div>`
        : ''
    }
  </div>
  ${s ? navigation(s, o.current) : ''}
</header>
<main id="main" tabindex="-1">
${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
${o.body}
</main>
<footer class="site-foot"><p>Eligibility service · provider portal · <a href="/docs">API reference</a></p></footer>
</body>
</html>`;
}

/** A page that explains what went wrong and what to do next. */
export function messagePage(o: {
  title: string;
  message: HtmlValue;
  session?: PortalSession;
  action?: { href: string; label: string };
}): SafeHtml {
  return page({
    title: o.title,
    session: o.session,
    body: html`<h1>${o.title}</h1><p>${o.message}</p>${
      o.action ? html`<p><a class="button" href="${o.action.href}">${o.action.label}</a></p>` : ''
    }`,
  });
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'date' | 'search';
  hint?: string;
  error?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'text';
  placeholder?: string;
  maxlength?: number;
}

/** Element id for a field name (names such as `subscriber.memberId` are not valid CSS ids everywhere). */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export function textField(f: FieldOptions): SafeHtml {
  const id = fieldId(f.name);
  const describedBy = [f.hint ? `${id}-hint` : '', f.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${f.error ? ' has-error' : ''}">
  <label for="${id}">${f.label}${f.required ? '' : html` <span class="muted">(optional)</span>`}</label>
  ${f.hint ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
  ${f.error ? html`<p class="error" id="${id}-error">${f.error}</p>` : ''}
  <input id="${id}" name="${f.name}" type="${f.type ?? 'text'}" value="${f.value ?? ''}"${
    f.required ? html` required` : ''
  }${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
    f.inputmode ? html` inputmode="${f.inputmode}"` : ''
  }${f.placeholder ? html` placeholder="${f.placeholder}"` : ''}${
    f.maxlength ? html` maxlength="${f.maxlength}"` : ''
  }${describedBy ? html` aria-describedby="${describedBy}"` : ''}${f.error ? html` aria-invalid="true"` : ''}>
</div>`;
}

/** The list of problems at the top of a form, each linking to its field. */
export function errorSummary(errors: { field: string; message: string }[]): SafeHtml {
  if (!errors.length) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1">
  <h2>There is a problem</h2>
  <ul>${errors.map((e) => html`<li><a href="#${fieldId(e.field)}">${e.message}</a></li>`)}</ul>
</div>`;
}

/** A value that can be copied: shown selectable, with a copy button once the script has loaded. */
export function copyable(id: string, value: string, label: string): SafeHtml {
  return html`<div class="copy">
  <label for="${id}">${label}</label>
  <div class="copy-row"><input id="${id}" class="mono" type="text" readonly value="${value}" data-select-on-focus>
  <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button></div>
  <p class="muted copy-status" data-copy-status="${id}" aria-live="polite"></p>
</div>`;
}
