import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface HttpCollector {
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** The status the next requests get (200 unless told). */
  answer: number;
  close(): Promise<void>;
}

/** A local HTTP server that plays a Slack incoming webhook or an alert webhook receiver. */
export async function startHttpCollector(path = '/hook'): Promise<HttpCollector> {
  const received: ReceivedRequest[] = [];
  const collector = { answer: 200 } as { answer: number };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = collector.answer;
      if (status < 300)
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'invalid_token');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(collector, {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export interface SmtpInbox {
  readonly url: string;
  /** Raw RFC 5322 messages accepted. */
  readonly messages: string[];
  /** When set, every message is refused at end of DATA with this reply. */
  rejectWith: string | undefined;
  readonly logins: string[];
  /** Per accepted message: whether the session was encrypted (TLS or STARTTLS). */
  readonly encrypted: boolean[];
  close(): Promise<void>;
}

/**
 * A real SMTP server with AUTH PLAIN/LOGIN. `tls`: `none` offers no STARTTLS, `starttls`
 * offers it (smtp-server's own self-signed certificate), `implicit` is TLS from the first byte.
 */
export async function startSmtpInbox(
  user: string,
  password: string,
  tls: 'none' | 'starttls' | 'implicit' = 'none',
): Promise<SmtpInbox> {
  const messages: string[] = [];
  const encrypted: boolean[] = [];
  const logins: string[] = [];
  const inbox = { rejectWith: undefined } as { rejectWith: string | undefined };
  const server = new SMTPServer({
    secure: tls === 'implicit',
    disabledCommands: tls === 'none' ? ['STARTTLS'] : [],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? '');
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('535 5.7.8 Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (inbox.rejectWith) {
          const error = new Error(inbox.rejectWith) as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
          return;
        }
        messages.push(Buffer.concat(chunks).toString('utf8'));
        encrypted.push(session.secure);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(inbox, {
    url: `${tls === 'implicit' ? 'smtps' : 'smtp'}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    messages,
    logins,
    encrypted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The header line (the first block's text) of each Slack message the collector received. */
export function slackHeaders(collector: HttpCollector): string[] {
  return collector.received.map(
    (r) => (JSON.parse(r.body) as { blocks: { text: { text: string } }[] }).blocks[0]!.text.text,
  );
}
