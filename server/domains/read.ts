// What other features may read of domains: the links feature checks a link's domain and names the
// domains of the links it lists. The rest of the domains folder is its own business.
export { domainNamesByIds, findAccountDomain, listAccountDomains } from "./repository";
