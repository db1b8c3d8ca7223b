import type { CommandSpec } from '../command.js';
import { UsageError } from '../../errors.js';

export const keygenCommand: CommandSpec = {
  name: 'keygen',
  summary: 'write an Ed25519 key pair for signing certification packages',
  usage: 'fsapi-conformance keygen --out PREFIX',
  description: `
Writes PREFIX.key (the private key, PKCS#8 PEM, file mode 0600: keep it secret, e.g. as a CI secret) and PREFIX.pub
(the public key, SPKI PEM: give it to whoever verifies your packages). Refuses to overwrite an existing PREFIX.key.`,
  options: [{ name: 'out', type: 'string', value: 'PREFIX', description: 'where to write PREFIX.key and PREFIX.pub' }],
  exitCodes: [
    { code: 0, meaning: 'the key pair was written' },
    { code: 2, meaning: 'no --out, or PREFIX.key exists or cannot be written' },
    { code: 3, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    const out = args.values['out'];
    if (typeof out !== 'string' || out === '') throw new UsageError('keygen needs --out PREFIX (it writes PREFIX.key and PREFIX.pub)');
    const { writeKeyPair } = await import('../../certify/keys.js');
    const k = writeKeyPair(out);
    console.log(`private key: ${k.privatePath} (mode 0600; keep it secret)\npublic key:  ${k.publicPath}\nfingerprint: ${k.fingerprint}`);
    return 0;
  },
};
