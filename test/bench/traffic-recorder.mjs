import { createServer, request } from 'node:http';

/** The sandbox words a 429 it injects (--spurious-429-rate) differently from one its windows cause. */
const INJECTED = /try again after/i;

/**
 * A pass-through proxy in front of the sandbox that notes every exchange: when the request
 * arrived (epoch ms), how many items it carried, the status, and for a 429 whether the sandbox
 * injected it. The client's report counts all 429s alike; only those a window caused are the
 * client's fault, and the arrival times show how closely it follows the windows.
 */
export async function startTrafficRecorder(target) {
  const exchanges = [];
  const server = createServer((incoming, outgoing) => {
    const at = Date.now();
    const sent = [];
    incoming.on('data', (part) => sent.push(part));
    incoming.on('end', () => {
      const body = Buffer.concat(sent);
      const forward = request(new URL(incoming.url, target), { method: incoming.method, headers: incoming.headers }, (answer) => {
        const received = [];
        answer.on('data', (part) => received.push(part));
        answer.on('end', () => {
          const reply = Buffer.concat(received);
          const sent = incoming.method === 'POST' ? JSON.parse(body.toString()) : [{}];
          const items = sent.length;
          // The first item's meta: lets jobs sharing one recorder (one account) be told apart.
          const meta = sent[0]?.meta;
          const injected = answer.statusCode === 429 && INJECTED.test(reply.toString());
          exchanges.push({ at, answeredAt: Date.now(), items, status: answer.statusCode, injected, meta });
          outgoing.writeHead(answer.statusCode, answer.headers);
          outgoing.end(reply);
        });
      });
      forward.on('error', () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}
