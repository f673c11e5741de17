/** The multipart/form-data reader behind caqh-core-mime: interoperable with undici's writer, and strict. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FormData, Response } from 'undici';
import { decodeFormData, encodeFormData, MultipartError } from '../../src/payers/core/multipart.ts';

const CT = 'multipart/form-data; boundary=XyZ';
const part = (name: string, value: string, extra = '') =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`;

describe('decodeFormData', () => {
  test("reads what undici's FormData writer sends, file parts included", async () => {
    const form = new FormData();
    form.append('ErrorCode', 'Success');
    form.append('Payload', new Blob(['ISA*00*~\nIEA*1*1~']), 'answer.x12');
    const res = new Response(form);
    const body = Buffer.from(await res.arrayBuffer());
    const fields = decodeFormData(body, res.headers.get('content-type')!);
    assert.deepEqual(
      [...fields],
      [
        ['ErrorCode', 'Success'],
        ['Payload', 'ISA*00*~\nIEA*1*1~'],
      ],
    );
  });

  test('a preamble, an epilogue, a quoted boundary, transport padding and UTF-8 values', () => {
    const body = `preamble\r\n${part('A', 'ünï')}--XyZ \t\r\n${'Content-Disposition: form-data; name=B\r\n\r\n'}b\r\n--XyZ--\r\nepilogue`;
    const fields = decodeFormData(Buffer.from(body), 'multipart/form-data; boundary="XyZ"');
    assert.deepEqual(
      [...fields],
      [
        ['A', 'ünï'],
        ['B', 'b'],
      ],
    );
  });

  test('round trip with the writer keeps every byte of the values', () => {
    const values: [string, string][] = [
      ['Payload', 'ISA*~\r\nGS~\nIEA~\r'],
      ['Empty', ''],
    ];
    const form = encodeFormData(values);
    assert.deepEqual([...decodeFormData(form.body, form.contentType)], values);
  });

  const refused: [string, string, string, RegExp][] = [
    ['another media type', 'application/json', part('A', '1'), /not multipart\/form-data/],
    ['no boundary', 'multipart/form-data', part('A', '1'), /no usable boundary/],
    ['no delimiter', CT, 'nothing here', /no boundary delimiter/],
    [
      'a body that ends inside a part',
      CT,
      '--XyZ\r\nContent-Disposition: form-data; name="A"\r\n\r\nno end',
      /ends inside a part/,
    ],
    [
      'a part without a name',
      CT,
      `--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--`,
      /without a name/,
    ],
    [
      'a part that is not form-data',
      CT,
      `--XyZ\r\nContent-Disposition: attachment; name="A"\r\n\r\nx\r\n--XyZ--`,
      /not form-data/,
    ],
    [
      'base64 transfer encoding',
      CT,
      `${part('A', 'eA==', '\r\nContent-Transfer-Encoding: base64')}--XyZ--`,
      /transfer encoding/,
    ],
    ['a repeated field', CT, `${part('A', '1')}${part('A', '2')}--XyZ--`, /appears twice/],
    ['a delimiter without CRLF', CT, '--XyZjunk', /not followed by CRLF/],
    [
      'too many parts',
      CT,
      `${Array.from({ length: 70 }, (_, i) => part(`F${i}`, 'x')).join('')}--XyZ--`,
      /too many parts/,
    ],
  ];
  for (const [what, contentType, body, pattern] of refused) {
    test(`refuses ${what}`, () => {
      assert.throws(
        () => decodeFormData(Buffer.from(body), contentType),
        (err: Error) => err instanceof MultipartError && pattern.test(err.message),
      );
    });
  }
});
