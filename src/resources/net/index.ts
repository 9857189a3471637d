export { classifyAddress, grantedForm, ADDRESS_CLASSES, METADATA_ADDRESSES, METADATA_NAMES, type AddressClass, type ClassifiedAddress, type Embedding } from './address.js';
export { normalizeUrl, WEB_SCHEMES, GIT_SCHEMES, type DestinationUrl, type SchemePorts } from './url.js';
export { systemResolver, dnsServerResolver, type HostResolver, type ResolvedAddress, type DnsServerOptions } from './resolver.js';
export { authorizeDestination, type AuthorizeOptions, type AuthorizedDestination, type DestinationGrant } from './authorize.js';
export { authorizeRedirect, type AuthorizedRedirect } from './redirect.js';
export { pinnedLookup, pinnedAgent, pinnedRequestOptions, connectPinned } from './pinned.js';
export { destinationRefused, type DestinationRefusal } from './refusal.js';
export { destinationEvidence, type DestinationEvidence } from './evidence.js';
