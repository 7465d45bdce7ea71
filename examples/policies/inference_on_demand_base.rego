# Every inference pool keeps an on-demand base: a spot-only pool can be reclaimed all at
# once, and the service with it. A warning: the team decides.
package gpulint.inference_on_demand_base

warn contains {
	"msg": sprintf("inference pool `%s` runs on spot capacity only: one reclaim takes the service down", [c.subject]),
	"location": c.market,
	"subject": c.subject,
	"help": "keep an on-demand base (an on-demand node group beside it, or an on-demand share of a mixed pool)",
} if {
	some c in input.capacity
	c.role.value == "inference"
	c.market.value == "spot"
}
