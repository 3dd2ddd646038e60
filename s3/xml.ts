// The XML of the S3 protocol: a writer for responses and a small parser for
// the few request bodies S3 has (CompleteMultipartUpload, Delete, Tagging,
// CreateBucketConfiguration). Pure: text in, a tree or text out. The parser
// takes elements, attributes (ignored), text, CDATA, comments and the five
// predefined entities plus character references; no DTDs (entity expansion
// is a known attack on XML parsers), and bounded depth and size.
import { s3Error } from './errors.js';
import { S3_LIMITS } from './limits.js';

export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(Number.parseInt(body.slice(1), 10));
    const named = ENTITIES[body];
    if (named === undefined) throw s3Error('MalformedXML', `unknown entity ${whole}`);
    return named;
  });
}

/** Escapes text for an element's content. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&${Object.keys(ENTITIES).find((k) => ENTITIES[k] === c)};`);
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

/** Parses a request body; every failure is MalformedXML. Namespace prefixes are dropped. */
export function parseXml(text: string): XmlElement {
  if (text.length > S3_LIMITS.xmlBodyBytesMax) throw s3Error('MalformedXML', 'the XML body is too large');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw s3Error('MalformedXML', 'DTDs are not accepted');
  const root: XmlElement = { name: '', children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag =
    /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g;
  let at = 0;
  for (let match = tag.exec(text); match; match = tag.exec(text)) {
    const top = stack[stack.length - 1] as XmlElement;
    const between = text.slice(at, match.index);
    if (between.includes('<')) throw s3Error('MalformedXML', 'a tag is malformed');
    top.text += decodeEntities(between);
    at = tag.lastIndex;
    if (match[5] !== undefined) {
      top.text += match[5];
      continue;
    }
    if (match[2] === undefined) continue; // a comment or the prolog
    const name = localName(match[2]);
    if (match[1] === '/') {
      if (stack.length === 1 || top.name !== name)
        throw s3Error('MalformedXML', `closing tag </${name}> does not match <${top.name}>`);
      stack.pop();
      continue;
    }
    const element: XmlElement = { name, children: [], text: '' };
    top.children.push(element);
    if (match[4] !== '/') {
      if (stack.length > S3_LIMITS.xmlDepthMax) throw s3Error('MalformedXML', 'the XML is nested too deep');
      stack.push(element);
    }
  }
  const rest = text.slice(at);
  if (rest.includes('<') || stack.length !== 1) throw s3Error('MalformedXML', 'the XML is not complete');
  if (root.children.length !== 1) throw s3Error('MalformedXML', 'the XML must have one root element');
  return root.children[0] as XmlElement;
}

/** The children of `element` named `name`. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The trimmed text of the first child named `name`, or undefined. */
export function childText(element: XmlElement, name: string): string | undefined {
  return element.children.find((c) => c.name === name)?.text.trim();
}

/** A value for the writer: text, a nested element, a list of repeated elements, or nothing. */
export type XmlValue = string | number | boolean | undefined | XmlNode | XmlNode[];
export interface XmlNode {
  [name: string]: XmlValue;
}

function writeNode(node: XmlNode, out: string[]): void {
  for (const [name, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) out.push(`<${name}>`, ...writeChildren(item), `</${name}>`);
    } else if (typeof value === 'object') {
      out.push(`<${name}>`, ...writeChildren(value), `</${name}>`);
    } else {
      out.push(`<${name}>${escapeXml(String(value))}</${name}>`);
    }
  }
}

function writeChildren(node: XmlNode): string[] {
  const out: string[] = [];
  writeNode(node, out);
  return out;
}

const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** A whole response document: `<Root xmlns=...>...</Root>` with the XML prolog. */
export function xmlDocument(root: string, body: XmlNode, namespace = true): string {
  const attrs = namespace ? ` xmlns="${S3_NAMESPACE}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${attrs}>${writeChildren(body).join('')}</${root}>`;
}
