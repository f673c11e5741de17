/**
 * SSRF guard for webhook URLs, in two layers:
 *
 * 1. Save time (`checkWebhookUrl`): https only; no credentials; the default port or 1024–65535; no
 *    literal private/loopback/link-local/metadata/reserved address; no internal hostnames (`localhost`,
 *    `*.localhost`, single labels, `.local`, `.internal`, …); no trailing-dot hostnames. Literal-IP
 *    tricks (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, IPv4-mapped IPv6)
 *    need no special code: the WHATWG URL parser rewrites them to canonical addresses first, and those
 *    are judged by `forbiddenAddressReason`.
 * 2. Connect time (`isForbiddenAddress`, used by send.ts): every address a hostname resolves to is
 *    checked when the connection is made, so a public name that later resolves inward (DNS rebinding,
 *    or `127.0.0.1.nip.io`-style names) is refused too. Save time cannot know what a name resolves to.
 *
 * With `allowPrivate` (ELIG_ALLOW_PRIVATE_WEBHOOKS=1, development only) http and any host and port are
 * allowed; the scheme and credential rules still apply. Reasons are shown to portal users.
 */
import { forbiddenAddressReason, isForbiddenAddress, parseIPv4 } from './addresses.ts';

export { isForbiddenAddress };

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;
/** Ports below this (other than 443) belong to system services (SSH, SMTP, …), never to a webhook. */
const MIN_CUSTOM_PORT = 1024;

// Names that never resolve to a public address: RFC 6761/6762 special-use names, ICANN's private-use
// `.internal`, and private suffixes in common use that are not (and will not be) public TLDs.
const INTERNAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'localdomain',
  'arpa',
  'test',
  'invalid',
  'onion',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
];

const refuse = (reason: string): UrlCheck => ({ ok: false, reason });

export function checkWebhookUrl(input: string, options: { allowPrivate: boolean }): UrlCheck {
  if (input.length > MAX_URL_LENGTH) return refuse(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refuse('This is not a valid URL. Enter a full address such as https://example.com/webhooks.');
  }
  const scheme = url.protocol;
  if (scheme !== 'https:' && !(options.allowPrivate && scheme === 'http:')) {
    return refuse(
      scheme === 'http:'
        ? 'The webhook URL must use https:// so that patient data is encrypted in transit.'
        : `The webhook URL must start with https:// (not ${scheme}//).`,
    );
  }
  if (url.username || url.password) {
    return refuse('Credentials in the URL are not allowed; authenticate deliveries with the signing secret.');
  }
  url.hash = '';
  if (options.allowPrivate) return { ok: true, url };

  if (url.port !== '' && Number(url.port) < MIN_CUSTOM_PORT) {
    return refuse(
      `Port ${url.port} is not allowed for webhooks. Use the default https port (443) or a port from ${MIN_CUSTOM_PORT} to 65535.`,
    );
  }
  const host = url.hostname;
  if (host.startsWith('[')) return checkLiteralAddress(host.slice(1, -1), url);
  if (parseIPv4(host)) return checkLiteralAddress(host, url);
  return checkHostname(host, url);
}

function checkLiteralAddress(address: string, url: URL): UrlCheck {
  const reason = forbiddenAddressReason(address);
  if (reason === null) return { ok: true, url };
  return refuse(
    `The URL points to ${address}, ${reason}, which webhooks may not reach. Use a public address or hostname.`,
  );
}

function checkHostname(host: string, url: URL): UrlCheck {
  if (host.endsWith('.')) {
    return refuse('Remove the trailing dot from the hostname (write example.com, not example.com.).');
  }
  if (host.length > 253 || host.split('.').some((label) => label.length === 0 || label.length > 63)) {
    return refuse(
      'The hostname is not valid: check for empty parts (..) or parts longer than 63 characters.',
    );
  }
  const labels = host.split('.');
  if (labels.length < 2) {
    return refuse(
      `"${host}" is an internal hostname. Use a public, fully qualified hostname such as hooks.example.com.`,
    );
  }
  const suffix = INTERNAL_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix) {
    return refuse(
      `Hostnames ending in .${suffix} are internal and cannot receive webhooks. Use a public hostname.`,
    );
  }
  return { ok: true, url };
}
