/** Monitor requests for tests: a sandbox member, and dates relative to today (UTC) so tests never go stale. */
import { member } from './members.ts';
import { sandboxRequest } from './service.ts';

/** YYYYMMDD, `days` from today (UTC). */
export function dayFromToday(days: number, dashed = false): string {
  const text = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  return dashed ? text : text.replaceAll('-', '');
}

export function monitorBody(schedule: { every: number } | { dates: string[] }, memberId = 'SBX1000001') {
  return { ...sandboxRequest(member(memberId)), ...schedule };
}

/** PATCH or DELETE with a key (the test client has GET and POST only). */
export async function send(
  url: string,
  key: string | undefined,
  method: 'PATCH' | 'DELETE',
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(key ? { authorization: `Key ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed as any };
}
