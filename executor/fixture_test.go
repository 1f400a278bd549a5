package executor

const acmeDiscussion = "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
	"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."
