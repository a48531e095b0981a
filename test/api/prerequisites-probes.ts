import type { ApiServer } from '../../api/server';

/** What /readyz answered: its status, its check per dependency and its warnings. */
export interface Readyz {
  status: number;
  checks: Record<string, string>;
  warnings?: Record<string, string>;
}

export async function readyz(baseUrl: string): Promise<Readyz> {
  const res = await fetch(`${baseUrl}/readyz`);
  const { checks, warnings } = (await res.json()) as Omit<Readyz, 'status'>;
  return { status: res.status, checks, ...(warnings ? { warnings } : {}) };
}

/** Sends "hello" as a new conversation's first message: the status and error code it got. */
export async function sendMessage(api: ApiServer): Promise<{ status: number; code: unknown }> {
  const res = await fetch(`${api.url}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hello' }),
  });
  return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
}

/** A route's answer (POST for the message route, with "hello"; GET otherwise): status, retry-after and body. */
export async function answer(
  api: ApiServer,
  route: string
): Promise<{ route: string; status: number; retryAfter: string | null; body: unknown }> {
  const post = route === '/api/v1/conversation/message';
  const res = await fetch(`${api.url}${route}`, {
    method: post ? 'POST' : 'GET',
    ...(post ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) } : {}),
  });
  return { route, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}
