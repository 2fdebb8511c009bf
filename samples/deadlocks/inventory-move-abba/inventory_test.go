package inventory

import "testing"

func TestRebalanceBothWays(t *testing.T) {
	north, south := NewBin("north"), NewBin("south")
	Rebalance([]Move{{north, south, "widget", 3}, {south, north, "widget", 2}})
	if north.qty["widget"] != 9 {
		t.Fatal(north.qty)
	}
}
