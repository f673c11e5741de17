/** The strict XML reader behind caqh-core-soap: what it reads, and what it refuses without echoing it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cdata, parseXml, XmlError } from '../../src/payers/core/xml.ts';

describe('parseXml', () => {
  test('namespaces, attributes, entities, character references, CDATA and comments', () => {
    const doc = parseXml(
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- lead --><a:root xmlns:a="urn:a" xmlns="urn:d" x=\'1\'>' +
        '<child a:k="v&amp;w">t&lt;1&#65;&#x42;<![CDATA[<raw>&amp;]]></child><?pi data?><b:x xmlns:b="urn:b"/></a:root>',
    );
    assert.equal(doc.ns, 'urn:a');
    assert.equal(doc.name, 'root');
    assert.deepEqual(doc.attributes, [{ ns: '', name: 'x', value: '1' }]);
    const [child, x] = doc.children;
    assert.equal(child!.ns, 'urn:d');
    assert.deepEqual(child!.attributes, [{ ns: 'urn:a', name: 'k', value: 'v&w' }]);
    assert.equal(child!.text, 't<1AB<raw>&amp;');
    assert.equal(x!.ns, 'urn:b');
  });

  test('a split CDATA section reads back as the original text', () => {
    const text = 'a]]>b]]]]>c';
    assert.equal(parseXml(`<r>${cdata(text)}</r>`).text, text);
  });

  const refused: [string, string, RegExp][] = [
    ['DOCTYPE', '<!DOCTYPE r [<!ENTITY x "SBX1000001">]><r>&x;</r>', /DOCTYPE is not allowed/],
    ['mismatched end tag', '<a><b></a></b>', /end tag does not match/],
    ['unclosed element', '<a><b></b>', /ends inside an element/],
    ['undeclared prefix', '<p:a/>', /undeclared namespace prefix/],
    ['unknown entity', '<a>&member;</a>', /unknown entity/],
    ['bare ampersand', '<a>JANE & DOE</a>', /'&' that starts no reference/],
    ['two roots', '<a/><b/>', /second root/],
    ['text outside the root', '<a/>SBX1000001', /text outside the root/],
    ['repeated attribute', '<a x="1" x="2"/>', /repeated attribute/],
    ['repeated namespace declaration', '<a xmlns:p="urn:a" xmlns:p="urn:a"/>', /repeated attribute/],
    ['unquoted attribute', '<a x=1/>', /quoted attribute value/],
    ['control character', '<a>\u0001</a>', /character XML does not allow/],
    ['nesting too deep', `${'<a>'.repeat(40)}${'</a>'.repeat(40)}`, /nested too deeply/],
    ['empty input', '', /ends inside an element/],
  ];
  for (const [what, xml, pattern] of refused) {
    test(`refuses ${what}, naming the problem only`, () => {
      assert.throws(
        () => parseXml(xml),
        (err: Error) => {
          assert.ok(err instanceof XmlError, 'an XmlError');
          assert.match(err.message, pattern);
          assert.ok(!/SBX1000001|JANE|DOE/.test(err.message), 'no content in the message');
          return true;
        },
      );
    });
  }

  test('an element count over the limit is refused', () => {
    assert.throws(() => parseXml(`<r>${'<x/>'.repeat(50)}</r>`, { maxElements: 20 }), /too many elements/);
  });
});
