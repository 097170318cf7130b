// The benchmark (test/bench) seeds and its baseline writes the same documents and rows as the
// service: the pure functions and statements, not a copy of them.
export { createCarrier } from "./domain/carrier.ts";
export { defaultConfiguration } from "./domain/configuration.ts";
export { credentialsCipher, parseCredentialsKey } from "./domain/credentials.ts";
export { addMapping } from "./domain/mapping.ts";
export { carriersService } from "./service.ts";
