/**
 * The baseline for `bench:ingest`: the least an Express JSON webhook endpoint can do (parse
 * the JSON body, answer 202), on the same machine, in a process of its own like the receiver.
 * Prints `listening <port>` once ready.
 */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/webhooks', express.json({ limit: 256 * 1024 }), (_request, response) => {
  response.status(202).json({ received: true });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
