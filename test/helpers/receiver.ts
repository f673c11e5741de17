/** A real webhook receiver on 127.0.0.1 that records every request with its raw body. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { eventually } from './eventually.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Status codes to answer, in order; 200 when exhausted. */
  script: number[] = [];
  private server: Server | undefined;
  url = '';

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        res.statusCode = this.script.shift() ?? 200;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${address.port}/hook`;
    return this;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    this.server?.closeAllConnections();
  }

  async waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
    return eventually(
      () => {
        if (this.received.length < count)
          throw new Error(`receiver got ${this.received.length} of ${count} deliveries`);
        return this.received;
      },
      { timeoutMs, what: `${count} deliveries` },
    );
  }

  /**
   * Resolves once no connection is open. A request is recorded when its body has been read, before its
   * connection can close, so from then on `received` holds every request that reached this receiver.
   */
  async drained(timeoutMs = 15_000): Promise<void> {
    await eventually(
      () =>
        new Promise<boolean>((resolve, reject) =>
          this.server!.getConnections((err, open) => (err ? reject(err) : resolve(open === 0))),
        ),
      { timeoutMs, what: 'the receiver to hold no open connection' },
    );
  }
}
