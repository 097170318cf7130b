export { type EndpointsProxy, startEndpointsProxy } from "@fop/kit/dev/endpoints-proxy";
