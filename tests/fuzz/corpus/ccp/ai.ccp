base ai
[switch]
threshold 8
victim_mask 1-4,36
marking_rate 0x20
[ca]
ccti_timer 20
exclude_sl 1
[cct]
entries 0:0 0:10 1:10 2:10
limit 3
