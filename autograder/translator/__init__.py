"""The reference English-to-Spanish translator: data, training, translation and its CLI."""
