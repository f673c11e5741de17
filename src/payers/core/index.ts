/** CAQH CORE Connectivity Rule vC2.2.0 connectors: SOAP 1.2 and HTTP MIME multipart. */
export { createCoreMimeConnector } from './mime.ts';
export { createCoreSoapConnector } from './soap.ts';
