/**
 * A TCP proxy on the loopback interface that breaks the way networks and servers do, between the service
 * and PostgreSQL (127.0.0.1:5432 unless told otherwise). Modes:
 * - `pass`: forwards both ways.
 * - `stall`: accepts connections and bytes but forwards and answers nothing (a partition, a hung server);
 *   bytes wait in the sockets and flow again on `pass`, as TCP retransmission would deliver them.
 * - `refuse`: stops listening (new connections are refused) and closes the open ones (a stopped server).
 * - `reset`: resets open connections and every new one (RST).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type FaultMode = 'pass' | 'stall' | 'refuse' | 'reset';

export interface FaultProxy {
  readonly port: number;
  readonly mode: FaultMode;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  setMode(mode: FaultMode): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server?: Socket;
}

export async function startFaultProxy(target = { host: '127.0.0.1', port: 5432 }): Promise<FaultProxy> {
  let mode: FaultMode = 'pass';
  const pairs = new Set<Pair>();
  let server: Server | undefined;
  let port = 0;

  const drop = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.server?.destroy();
  };
  const flow = (pair: Pair) => {
    if (!pair.server) {
      const upstream = connect(target.port, target.host);
      pair.server = upstream;
      upstream.on('data', (d) => pair.client.write(d));
      upstream.on('error', () => drop(pair));
      upstream.on('close', () => drop(pair));
      pair.client.on('data', (d) => upstream.write(d));
    }
    pair.client.resume();
    pair.server.resume();
  };
  const onConnection = (client: Socket) => {
    const pair: Pair = { client };
    client.on('error', () => drop(pair));
    client.on('close', () => drop(pair));
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    pairs.add(pair);
    client.pause();
    if (mode === 'pass') flow(pair);
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer({ pauseOnConnect: true }, onConnection);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        port = (s.address() as { port: number }).port;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (s) s.close(() => resolve());
      else resolve();
    });

  await listen();
  return {
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async setMode(next) {
      mode = next;
      if (next === 'refuse') {
        await Promise.all([stopListening(), ...[...pairs].map(async (p) => drop(p))]);
        return;
      }
      if (!server) await listen();
      for (const pair of [...pairs]) {
        if (next === 'reset') {
          pairs.delete(pair);
          pair.client.resetAndDestroy();
          pair.server?.resetAndDestroy();
        } else if (next === 'stall') {
          pair.client.pause();
          pair.server?.pause();
        } else {
          flow(pair);
        }
      }
    },
    async close() {
      for (const pair of [...pairs]) drop(pair);
      await stopListening();
    },
  };
}
