import { request as httpRequest } from 'node:http';

/**
 * POSTs a message to the API at `baseUrl` and hangs up once `reached` resolves (the route got as far as the turn):
 * a caller gone before its answer.
 */
export async function sendMessageAndLeave(baseUrl: string, reached: Promise<void>): Promise<void> {
  const body = JSON.stringify({ message: 'hello' });
  const req = httpRequest(`${baseUrl}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined);
  req.end(body);
  await reached;
  req.destroy();
}
