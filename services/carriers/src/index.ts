export { credentialsCipher, parseCredentialsKey } from "./domain/credentials.ts";
export { carriersService } from "./service.ts";
