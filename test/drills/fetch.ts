// Plain fetch against the stand-ins, as a probe would: status, raw text and the parsed body.
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export async function get(url: string, key?: string, init: RequestInit = {}): Promise<Answer> {
  return answer(await fetch(url, { ...init, headers: key ? { authorization: `Bearer ${key}` } : {} }));
}

export async function post(url: string, key: string, payload: unknown, init: RequestInit = {}): Promise<Answer & { body: Record<string, unknown> }> {
  const a = await answer(await fetch(url, { ...init, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) }));
  return { ...a, body: (a.body ?? {}) as Record<string, unknown> };
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

export type ErrorBody = { message: string; type: unknown; param: unknown; code: unknown };

export const errorOf = (body: unknown): ErrorBody => (body as { error: ErrorBody }).error;
