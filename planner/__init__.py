"""The planner: plan types, gold-plan synthesis, training data, fine-tuning and inference backends."""
