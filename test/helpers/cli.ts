/** Runs the `elig` command line in this process (src/cli/main.ts), capturing what it writes. */
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.ts';

function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

export async function eligInProcess(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
