// What other features may read of domains: the links feature checks a link's domain and names the
// domains of the links it lists; the reports resolve a domain scope (by id or by name); an import checks
// the account's domains. The rest of the domains folder is its own business.
export { domainNamesByIds, findAccountDomain, findAccountDomainIdByName, listAccountDomains } from "./repository";
